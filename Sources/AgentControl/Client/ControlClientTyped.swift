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
        let check = Self.helloCheck(protocolVersion)
        let args = try Self.helloArguments(protocolVersion)
        let outcome: Swift.Result<JSONValue, ControlClientError>
        do {
            outcome = .success(try request(ControlVerbs.hello.name, args: args, timeout: timeout))
        } catch let error as ControlClientError {
            outcome = .failure(error)
        }
        return try check(outcome)
    }

    /// Sends `hello` in the same write as the next request, saving a round trip; that request
    /// then throws `.protocolMismatch` as `hello()` would. A daemon of this version answers a
    /// `hello` before it starts what follows and runs nothing after a refused one. One that
    /// predates this (protocol 1, without `hello`) would still run the request: only for verbs
    /// whose effect is harmless there (`ControlVerb.sendsHelloAlong`).
    public func helloWithNextRequest(protocolVersion: Int = ControlProtocolVersion.effective()) throws {
        let check = Self.helloCheck(protocolVersion)
        pendingHello = (try Self.helloArguments(protocolVersion), { _ = try check($0) })
    }

    private static func helloArguments(_ protocolVersion: Int) throws -> JSONValue {
        do {
            return try ControlCoding.json(HelloArguments(protocolVersion: protocolVersion, client: "wcs-agent \(AgentVersion.version)"))
        } catch {
            throw ControlClientError.protocolError("cannot encode the hello arguments: \(error)")
        }
    }

    /// Reads `hello`'s outcome (its result, or how the request failed) as `hello()` reports it.
    private static func helloCheck(_ protocolVersion: Int) -> (Swift.Result<JSONValue, ControlClientError>) throws -> HelloResult {
        { outcome in
            let wire: JSONValue
            switch outcome {
            case .success(let result): wire = result
            case .failure(.remote(let code, let message)) where code == ControlFailureCode.protocolMismatch.rawValue:
                throw ControlClientError.protocolMismatch(message)
            case .failure(.remote(let code, _)) where code == ControlFailureCode.unknownVerb.rawValue:
                throw ControlClientError.protocolMismatch(
                    "the daemon predates control protocol versions (it does not know \"hello\"); this client speaks "
                    + "protocol \(protocolVersion): restart the daemon with the installed wcs-agent")
            case .failure(let error): throw error
            }
            let answer: HelloResult
            do {
                answer = try ControlCoding.decode(HelloResult.self, from: wire)
            } catch {
                throw ControlClientError.protocolError("hello answered with an unexpected result: \(ControlCoding.describe(error))")
            }
            guard answer.protocolVersion == protocolVersion else {
                throw ControlClientError.protocolMismatch(
                    "the daemon (wcs-agent \(answer.version)) speaks control protocol \(answer.protocolVersion); this client "
                    + "speaks \(protocolVersion): use the wcs-agent binary that matches the daemon")
            }
            return answer
        }
    }
}
