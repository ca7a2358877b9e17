import WCSSession

/// A `ControlVerb` with its types erased, so verbs of every shape sit in one table. Built once per
/// verb by `init(_:)`; both closures keep the typed verb and do the JSON conversion at the edge.
struct AnyControlVerb: Sendable {
    /// A parsed command line, ready to send on a connected, greeted client: returns the exit code.
    typealias Send = (_ client: ControlClient, _ json: Bool, _ timeout: Double?) throws -> Int32

    let name: String
    let usage: String
    let summary: String
    let flags: ArgumentSpec
    /// Whether the CLI offers this verb (`hello` is protocol only).
    let isCommand: Bool
    /// Daemon side: decodes `args`, runs the handler, encodes the result or the failure.
    let dispatch: @Sendable (_ args: JSONValue, _ context: ControlContext) async -> ControlResponse
    /// CLI side: checks the command line (throws `UsageError`) and returns what sends it.
    let command: @Sendable (ParsedArguments) throws -> Send

    init<Arguments, Result>(_ verb: ControlVerb<Arguments, Result>) {
        name = verb.name
        usage = verb.usage
        summary = verb.summary
        flags = verb.flags
        isCommand = verb.render != nil
        dispatch = { args, context in
            let arguments: Arguments
            do {
                arguments = try ControlCoding.decode(Arguments.self, from: args)
            } catch {
                return .failure(code: ControlErrorCode.badRequest, message: "\(verb.name): \(ControlCoding.describe(error))")
            }
            do {
                return .ok(try ControlCoding.json(try await verb.handle(arguments, context)))
            } catch let failure as ControlFailure {
                return failure.response
            } catch let error as AgentError {
                return ControlFailure(.callError, error.description).response
            } catch {
                return ControlFailure(.internalError, "\(verb.name): \(error)").response
            }
        }
        command = { parsed in
            let arguments = try verb.parse(parsed)
            return { client, json, timeout in
                let (result, wire) = try client.exchange(verb, arguments, timeout: timeout)
                print(json ? wire.serialized() : verb.render?(result) ?? "")
                return verb.exitCode(result).rawValue
            }
        }
    }
}
