import Foundation
import WCSSession

/// `wcs-agent status --all`: the status of every line running on this host (every control
/// socket `AgentLine.running` finds), one block each, or one JSON document
/// `{"lines": [{"line", "socket", "status"} or {"line", "socket", "error"}]}`.
///
/// Runs on the CLI's thread, one line after the other. Exit 0 when every line answered, 3 when
/// no line was found, 1 when some did not answer (each is still listed, with its error).
enum LineStatus {
    static func run(json: Bool, timeout: Double) -> Int32 {
        let lines = AgentLine.running()
        guard !lines.isEmpty else {
            CLI.printError("wcs-agent status --all: no line is running (no control socket under \(AgentLine.runtimeRoot(ProcessInfo.processInfo.environment)))")
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
                let status = try client.request("status", timeout: timeout)
                entry["status"] = status
                blocks.append("\(title)\n" + StatusFormatter.human(status).split(separator: "\n").map { "  \($0)" }.joined(separator: "\n"))
            } catch {
                failed = true
                entry["error"] = .string("\(error)")
                blocks.append("\(title)\n  not answering: \(error)")
            }
            entries.append(.object(entry))
        }
        print(json ? JSONValue.object(["lines": .array(entries)]).serialized() : blocks.joined(separator: "\n\n"))
        return failed ? ExitCode.failure.rawValue : ExitCode.ok.rawValue
    }
}
