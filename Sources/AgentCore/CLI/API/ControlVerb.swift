import WCSSession

/// One verb of the control API, typed by its arguments and result: its name, command-line syntax,
/// help, daemon-side handler and human rendering. `ControlVerbs` lists them all; the CLI parser,
/// `--help`, the daemon's dispatcher and the prompt's requests all read that one list.
///
/// A value of closures; the handler runs in the daemon on a control request's task (any thread of
/// the cooperative pool), `parse` and `render` in the CLI process on its main task.
struct ControlVerb<Arguments: Codable & Sendable, Result: Codable & Sendable>: Sendable {
    /// The wire name (`"verb"` in a request) and the CLI verb.
    let name: String
    /// What follows the verb on the command line, e.g. `[CALL]` (shown by `--help`).
    let usage: String
    /// What the verb does, for `--help` (may span lines).
    let summary: String
    /// The verb's own flags, beyond `--socket`, `--config`, `--timeout` and `--json`.
    var flags = ArgumentSpec()
    /// Seconds the CLI waits for the answer unless `--timeout` says otherwise.
    var timeout: Double = 10
    /// Builds the arguments from the command line; throws `UsageError` (exit 2).
    let parse: @Sendable (ParsedArguments) throws -> Arguments
    /// Runs the verb in the daemon. Throws `ControlFailure`; an `AgentError` becomes `call_error`.
    let handle: @Sendable (Arguments, ControlContext) async throws -> Result
    /// The human output of the CLI; `nil` for a verb the CLI does not offer (`hello`).
    let render: (@Sendable (Result) -> String)?
    /// The CLI's exit code for a successful answer.
    var exitCode: @Sendable (Result) -> ExitCode = { _ in .ok }
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
