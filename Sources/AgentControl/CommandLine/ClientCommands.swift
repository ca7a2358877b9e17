import SystemSupport
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import WCSJSON

/// Runs the verbs that talk to a running daemon: connect, `hello`, send, print, exit code. Both
/// binaries run them through here: the lean `wcs-agent` front and the full one (`wcs-agentd`).
/// Blocking socket I/O on the process's main thread (the process does nothing else meanwhile).
public enum ClientCommands {
    /// Flags every client verb takes, on top of its own.
    public static let connectionSpec = ArgumentSpec(valueFlags: ["--socket", "--config", "--line", "--timeout"], booleanFlags: ["--json"])

    /// `wcs-agent VERB ...` for a verb of the table (`status --all`: every line, `LineStatus`).
    public static func run(_ verb: AnyControlVerb, _ arguments: [String]) -> Int32 {
        if verb.name == ControlVerbs.status.name && arguments.contains("--all") { return LineStatus.run(arguments) }
        let parsed: ParsedArguments
        let send: AnyControlVerb.Send
        let timeout: Double?
        do {
            parsed = try ParsedArguments(arguments, spec: connectionSpec.merging(verb.flags))
            timeout = try self.timeout(parsed)
            _ = try AgentLine.selected(parsed, useEnvironment: true)  // a bad line name is a usage error
            send = try verb.command(parsed)
        } catch {
            printError("wcs-agent \(verb.name): \(error)")
            return ExitCode.usage.rawValue
        }
        return connected(verb.name, parsed, helloAlong: verb.sendsHelloAlong) { client in
            try send(client, parsed.has("--json"), timeout)
        }
    }

    /// `wcs-agent events [--json]`: subscribes and prints events until the daemon goes away (exit 0).
    public static func events(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        let timeout: Double?
        do {
            parsed = try ParsedArguments(arguments, spec: connectionSpec)
            _ = try CLIArguments.none(parsed)
            timeout = try self.timeout(parsed)
            _ = try AgentLine.selected(parsed, useEnvironment: true)
        } catch {
            printError("wcs-agent events: \(error)")
            return ExitCode.usage.rawValue
        }
        return connected("events", parsed) { client in
            try client.subscribe(timeout: timeout ?? 10)
            while true {
                let event = try client.nextEvent(timeout: nil)
                print(parsed.has("--json") ? event.serialized() : UntrustedText.escaped(StatusFormatter.event(event)))
                fflush(nil)
            }
        }
    }

    /// Connects, says `hello` (`helloAlong`: in the same write as `body`'s request), runs `body`;
    /// maps client errors to messages and exit codes.
    private static func connected(_ name: String, _ parsed: ParsedArguments, helloAlong: Bool = false,
                                  _ body: (ControlClient) throws -> Int32) -> Int32 {
        do {
            let client = try ControlClient.connect(path: try socketPath(parsed), timeout: 5)
            defer { client.close() }
            if helloAlong { try client.helloWithNextRequest() } else { try client.hello() }
            return try body(client)
        } catch let error as ControlClientError {
            printError("wcs-agent \(name): \(error)")
            switch error {
            case .daemonNotRunning: return ExitCode.daemonNotRunning.rawValue
            case .protocolMismatch: return ExitCode.protocolMismatch.rawValue
            case .disconnected where name == "events": return ExitCode.ok.rawValue
            default: return ExitCode.failure.rawValue
            }
        } catch {
            printError("wcs-agent \(name): \(error)")
            return ExitCode.failure.rawValue
        }
    }

    /// `--timeout SECONDS`, if given.
    private static func timeout(_ parsed: ParsedArguments) throws -> Double? {
        guard let text = parsed.value("--timeout") else { return nil }
        guard let seconds = Double(text), seconds > 0 else { throw UsageError("--timeout needs a positive number of seconds") }
        return seconds
    }

    /// `--socket`, else `--line`'s socket, else the config file's `[agent] socket`, else
    /// `$WCS_AGENT_SOCKET`, else `$WCS_AGENT_LINE`'s socket, else `$RUNTIME_DIRECTORY/control.sock`,
    /// else /run/wcs-agent/control.sock. (`AgentLine` says where a line's socket is.)
    public static func socketPath(_ parsed: ParsedArguments) throws -> String {
        if let path = parsed.value("--socket") { return path }
        if parsed.value("--line") != nil, let line = try AgentLine.selected(parsed, useEnvironment: false) {
            return try line.controlSocket()
        }
        if let file = parsed.value("--config") {
            let config = try ConfigFile.load(path: file)
            if let path = try config.section("agent").path("socket") { return path }
        }
        let env = ProcessEnvironment.current
        if let path = env["WCS_AGENT_SOCKET"], !path.isEmpty { return path }
        if parsed.value("--config") == nil, let line = try AgentLine.selected(parsed, useEnvironment: true) {
            return try line.controlSocket()
        }
        if let dir = env["RUNTIME_DIRECTORY"]?.split(separator: ":").first { return "\(dir)/control.sock" }
        return defaultSocketPath
    }

    /// Where the daemon listens when nothing says otherwise (AgentCore's `AgentConfig.defaultSocketPath`).
    public static let defaultSocketPath = "/run/wcs-agent/control.sock"

    /// Writes `text` and a newline (unless it ends with one) to standard error, unbuffered. Errors
    /// quote the daemon's and the server's words (call ids, server info): escaped (`UntrustedText`).
    public static func printError(_ text: String) {
        fflush(nil)
        let safe = UntrustedText.escaped(text, keepingLineFeeds: true)
        _ = FileDescriptorIO.writeAll(STDERR_FILENO, safe.hasSuffix("\n") ? safe : safe + "\n")
    }
}
