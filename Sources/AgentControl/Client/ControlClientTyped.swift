import WCSJSON

/// Typed requests and the `hello` handshake on top of `ControlClient`'s JSON lines.
/// Same threading as `ControlClient`: blocking, one client per thread.
extension ControlClient {
    /// Sends `verb` with typed `arguments` and decodes its typed result. Throws `ControlClientError`;
    /// a result that does not decode is a `.protocolError` naming the field.
    public func request<Arguments, Result>(_ verb: ControlVerb<Arguments, Result>, _ arguments: Arguments,
                                    timeout: Double? = nil) throws -> Result {
        try exchange(verb, arguments, timeout: timeout).result
    }

    /// As `request`, also returning the result exactly as the daemon sent it (what `--json` prints,
    /// so keys a newer daemon adds reach scripts even through an older CLI).
    public func exchange<Arguments, Result>(_ verb: ControlVerb<Arguments, Result>, _ arguments: Arguments,
                                     timeout: Double? = nil) throws -> (result: Result, wire: JSONValue) {
        let args: JSONValue
        do {
            args = try ControlCoding.json(arguments)
        } catch {
            throw ControlClientError.protocolError("cannot encode the \(verb.name) arguments: \(error)")
        }
        let wire = try request(verb.name, args: args, timeout: timeout ?? verb.timeout)
        do {
            return (try ControlCoding.decode(Result.self, from: wire), wire)
        } catch {
            throw ControlClientError.protocolError("\(verb.name) answered with an unexpected result: \(ControlCoding.describe(error))")
        }
    }

    /// Says `hello` with the control protocol version this program speaks (`protocolVersion`) and
    /// returns the daemon's answer. Throws `.protocolMismatch` when the daemon speaks another
    /// version, or predates `hello` (it answers `unknown_verb`).
    @discardableResult
    public func hello(protocolVersion: Int = ControlProtocolVersion.effective(), timeout: Double = 10) throws -> HelloResult {
        let answer: HelloResult
        do {
            answer = try request(ControlVerbs.hello, HelloArguments(protocolVersion: protocolVersion,
                                                                     client: "wcs-agent \(AgentVersion.version)"),
                                 timeout: timeout)
        } catch ControlClientError.remote(let code, let message) where code == ControlFailureCode.protocolMismatch.rawValue {
            throw ControlClientError.protocolMismatch(message)
        } catch ControlClientError.remote(let code, _) where code == ControlFailureCode.unknownVerb.rawValue {
            throw ControlClientError.protocolMismatch(
                "the daemon predates control protocol versions (it does not know \"hello\"); this client speaks "
                + "protocol \(protocolVersion): restart the daemon with the installed wcs-agent")
        }
        guard answer.protocolVersion == protocolVersion else {
            throw ControlClientError.protocolMismatch(
                "the daemon (wcs-agent \(answer.version)) speaks control protocol \(answer.protocolVersion); this client "
                + "speaks \(protocolVersion): use the wcs-agent binary that matches the daemon")
        }
        return answer
    }
}
