import WCSJSON

/// A `ControlVerb` with its types erased, so verbs of every shape sit in one client table. Built
/// once per verb by `init(_:)`; the closure keeps the typed verb and converts at the edge.
/// (The daemon's half, the handler, is AgentCore's `ControlHandler`.)
public struct AnyControlVerb: Sendable {
    /// A parsed command line, ready to send on a connected, greeted client: returns the exit code.
    public typealias Send = (_ client: ControlClient, _ json: Bool, _ timeout: Double?) throws -> Int32

    /// The wire and CLI name.
    public let name: String
    /// What follows the name on the command line.
    public let usage: String
    /// What it does, for `--help`.
    public let summary: String
    /// The verb's own flags.
    public let flags: ArgumentSpec
    /// Whether the CLI offers this verb (`hello` is protocol only).
    public let isCommand: Bool
    /// Whether the CLI sends `hello` in the same write (`ControlVerb.sendsHelloAlong`).
    public let sendsHelloAlong: Bool
    /// CLI side: checks the command line (throws `UsageError`) and returns what sends it.
    public let command: @Sendable (ParsedArguments) throws -> Send

    /// Erases `verb`'s types.
    public init<Arguments, Result>(_ verb: ControlVerb<Arguments, Result>) {
        name = verb.name
        usage = verb.usage
        summary = verb.summary
        flags = verb.flags
        isCommand = verb.render != nil
        sendsHelloAlong = verb.sendsHelloAlong
        command = { parsed in
            let arguments = try verb.parse(parsed)
            return { client, json, timeout in
                let (result, wire) = try client.exchange(verb, arguments, timeout: timeout)
                print(json ? wire.serialized() : UntrustedText.escaped(verb.render?(result) ?? "", keepingLineFeeds: true))
                return verb.exitCode(result).rawValue
            }
        }
    }
}
