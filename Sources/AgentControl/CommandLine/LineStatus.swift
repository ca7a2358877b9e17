import SystemSupport
import FoundationEssentials
import WCSJSON

/// `wcs-agent status --all`: the status of every line running on this host (every control
/// socket `AgentLine.running` finds), one block each, or one JSON document
/// `{"lines": [{"line", "socket", "status"} or {"line", "socket", "error"}]}` (`status` exactly
/// as the daemon sent it).
///
/// Runs on the CLI's task with blocking sockets, one line after the other. Exit 0 when every
/// line answered, 3 when no line was found, 1 when some did not answer (each is still listed,
/// with its error).
public enum LineStatus {
    public static let spec = ArgumentSpec(valueFlags: ["--timeout"], booleanFlags: ["--all", "--json"])

    public static func run(_ arguments: [String]) -> Int32 {
        let json: Bool
        let timeout: Double?
        do {
            let parsed = try ParsedArguments(arguments, spec: spec)
            _ = try CLIArguments.none(parsed)
            json = parsed.has("--json")
            timeout = try parsed.value("--timeout").map {
                guard let seconds = Double($0), seconds > 0 else { throw UsageError("--timeout needs a positive number of seconds") }
                return seconds
            }
        } catch {
            ClientCommands.printError("wcs-agent status --all: \(error) (--all lists every line; it takes --json and --timeout only)")
            return ExitCode.usage.rawValue
        }
        let lines = AgentLine.running()
        guard !lines.isEmpty else {
            ClientCommands.printError("wcs-agent status --all: no line is running (no control socket under \(AgentLine.runtimeRoot(ProcessEnvironment.current)))")
            return ExitCode.daemonNotRunning.rawValue
        }
        var entries: [JSONValue] = []
        var blocks: [String] = []
        var failed = false
        for (line, socket) in lines {
            var entry: [String: JSONValue] = ["line": line.map(JSONValue.string) ?? .null, "socket": .string(socket)]
            let title = "line \(line ?? "(wcs-agent.service)")"
            do {
                let client = try ControlClient.connect(path: socket, timeout: 5)
                defer { client.close() }
                try client.hello()
                let (status, wire) = try client.exchange(ControlVerbs.status, NoArguments(), timeout: timeout)
                entry["status"] = wire
                blocks.append("\(title)\n" + StatusFormatter.human(status).split(separator: "\n").map { "  \($0)" }.joined(separator: "\n"))
            } catch {
                failed = true
                entry["error"] = .string("\(error)")
                blocks.append("\(title)\n  not answering: \(error)")
            }
            entries.append(.object(entry))
        }
        print(json ? JSONValue.object(["lines": .array(entries)]).serialized() : UntrustedText.escaped(blocks.joined(separator: "\n\n"), keepingLineFeeds: true))
        return failed ? ExitCode.failure.rawValue : ExitCode.ok.rawValue
    }
}
