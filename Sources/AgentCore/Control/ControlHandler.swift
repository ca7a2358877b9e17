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

    /// The handler `handle` for `verb`. It throws `ControlFailure`; an `AgentError` becomes `call_error`.
    init<Arguments, Result>(_ verb: ControlVerb<Arguments, Result>,
                            _ handle: @escaping @Sendable (Arguments, ControlContext) async throws -> Result) {
        name = verb.name
        dispatch = { args, context in
            let arguments: Arguments
            do {
                arguments = try ControlCoding.decode(Arguments.self, from: args)
            } catch {
                return .failure(code: ControlErrorCode.badRequest, message: "\(verb.name): \(ControlCoding.describe(error))")
            }
            do {
                return .ok(try ControlCoding.json(try await handle(arguments, context)))
            } catch let failure as ControlFailure {
                return failure.response
            } catch let error as AgentError {
                return ControlFailure(.callError, error.description).response
            } catch {
                return ControlFailure(.internalError, "\(verb.name): \(error)").response
            }
        }
    }
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
