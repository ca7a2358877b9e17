import WCSSession

/// The daemon's half of one control verb: its handler, typed by the same `Arguments` and `Result`
/// as the client's `ControlVerb` (AgentControl), so the two cannot drift apart. `ControlHandlers`
/// lists one per verb of `ControlVerbs.all`.
///
/// A value; `dispatch` runs on a control request's task (any thread of the cooperative pool).
struct ControlHandler: Sendable {
    /// The verb's wire name.
    let name: String
    /// Decodes `args`, runs the handler, encodes the result or the failure.
    let dispatch: @Sendable (_ args: JSONValue, _ context: ControlContext) async -> ControlResponse
    /// The same, at once on the caller's thread, for a verb whose handler never waits (`hello`,
    /// which the control server answers on the loop: see `ControlServer.HelloResponder`).
    let answerNow: (@Sendable (_ args: JSONValue, _ context: ControlContext) -> ControlResponse)?

    /// The handler `handle` for `verb`. It throws `ControlFailure`; an `AgentError` becomes `call_error`.
    init<Arguments, Result>(_ verb: ControlVerb<Arguments, Result>,
                            _ handle: @escaping @Sendable (Arguments, ControlContext) async throws -> Result) {
        name = verb.name
        answerNow = nil
        dispatch = { args, context in
            let arguments: Arguments
            switch Self.arguments(of: verb, args) {
            case .success(let decoded): arguments = decoded
            case .failure(let failure): return failure.response
            }
            do {
                return .ok(try ControlCoding.json(try await handle(arguments, context)))
            } catch {
                return Self.response(to: error, of: verb.name)
            }
        }
    }

    /// A handler that never waits: `answerNow` and `dispatch` both run it at once.
    init<Arguments, Result>(now verb: ControlVerb<Arguments, Result>,
                            _ handle: @escaping @Sendable (Arguments, ControlContext) throws -> Result) {
        name = verb.name
        let answer: @Sendable (JSONValue, ControlContext) -> ControlResponse = { args, context in
            switch Self.arguments(of: verb, args) {
            case .success(let arguments):
                do {
                    return .ok(try ControlCoding.json(try handle(arguments, context)))
                } catch {
                    return Self.response(to: error, of: verb.name)
                }
            case .failure(let failure): return failure.response
            }
        }
        answerNow = answer
        dispatch = { args, context in answer(args, context) }
    }

    private static func arguments<Arguments, Result>(of verb: ControlVerb<Arguments, Result>,
                                                     _ args: JSONValue) -> Swift.Result<Arguments, ControlResponseFailure> {
        do {
            return .success(try ControlCoding.decode(Arguments.self, from: args))
        } catch {
            return .failure(ControlResponseFailure(.failure(code: ControlErrorCode.badRequest,
                                                            message: "\(verb.name): \(ControlCoding.describe(error))")))
        }
    }

    private static func response(to error: Error, of name: String) -> ControlResponse {
        switch error {
        case let failure as ControlFailure: failure.response
        case let error as AgentError: ControlFailure(.callError, error.description).response
        default: ControlFailure(.internalError, "\(name): \(error)").response
        }
    }
}

/// A failure response carried through `Result` (which needs an `Error`).
private struct ControlResponseFailure: Error {
    let response: ControlResponse
    init(_ response: ControlResponse) { self.response = response }
}

/// What a verb handler may use. Built by the daemon for each request.
struct ControlContext: Sendable {
    /// Holds the agent in charge (a reload may replace it).
    let host: AgentHost
    /// Applies `reload`; `nil` where the daemon has no configuration to re-read.
    let reloader: DaemonReloader?
    /// The control protocol version the daemon speaks (see `ControlProtocolVersion`).
    let protocolVersion: Int
    /// Who sent the request.
    let peer: PeerCredentials
    /// The daemon's metrics counters (`metrics`); `nil` where nothing counts (a verb-table test).
    var metrics: MetricsCollector? = nil

    /// The agent in charge now.
    var agent: Agent { host.current }
}
