import WCSJSON

/// One verb of the control API as a client sees it, typed by its arguments and result: its name,
/// command-line syntax, help, parsing and human rendering. `ControlVerbs` lists them all; the CLI
/// parser, `--help`, the prompt's requests and, through AgentCore's `ControlHandlers` (one
/// handler per verb, typed by the same `Arguments` and `Result`), the daemon's dispatcher read it.
///
/// In AgentControl, not AgentCore, so the lean `wcs-agent` front speaks exactly the daemon's types
/// without loading the daemon's libraries. A value of closures; `parse` and `render` run in the
/// client process on its main thread.
public struct ControlVerb<Arguments: Codable & Sendable, Result: Codable & Sendable>: Sendable {
    /// The wire name (`"verb"` in a request) and the CLI verb.
    public let name: String
    /// What follows the verb on the command line, e.g. `[CALL]` (shown by `--help`).
    public let usage: String
    /// What the verb does, for `--help` (may span lines).
    public let summary: String
    /// The verb's own flags, beyond `--socket`, `--config`, `--timeout` and `--json`.
    public var flags = ArgumentSpec()
    /// Seconds the CLI waits for the answer unless `--timeout` says otherwise.
    public var timeout: Double = 10
    /// Builds the arguments from the command line; throws `UsageError` (exit 2).
    public let parse: @Sendable (ParsedArguments) throws -> Arguments
    /// The human output of the CLI; `nil` for a verb the CLI does not offer (`hello`).
    public let render: (@Sendable (Result) -> String)?
    /// The CLI's exit code for a successful answer.
    public var exitCode: @Sendable (Result) -> ExitCode = { _ in .ok }
    /// The CLI sends `hello` and this request in one write instead of waiting for hello's answer
    /// (`ControlClient.helloWithNextRequest`): for verbs that are harmless even on a daemon older
    /// than `hello` (which would run them while the CLI reports the mismatch), e.g. a wake.
    public var sendsHelloAlong = false

    /// Creates a verb.
    public init(name: String, usage: String, summary: String, flags: ArgumentSpec = ArgumentSpec(), timeout: Double = 10,
                parse: @escaping @Sendable (ParsedArguments) throws -> Arguments,
                render: (@Sendable (Result) -> String)?,
                exitCode: @escaping @Sendable (Result) -> ExitCode = { _ in .ok }, sendsHelloAlong: Bool = false) {
        self.name = name
        self.usage = usage
        self.summary = summary
        self.flags = flags
        self.timeout = timeout
        self.parse = parse
        self.render = render
        self.exitCode = exitCode
        self.sendsHelloAlong = sendsHelloAlong
    }
}
