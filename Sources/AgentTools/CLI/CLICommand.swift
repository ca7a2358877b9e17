import AgentCore
/// One `wcs-agent` command as `--help` lists it and `CLI.main` runs it. The client verbs come from
/// the control verb table (`ControlVerbs`); the others (`run`, `events`, `history`, `prompt`) are
/// listed here (`doctor` too). Values only.
struct CLICommand: Sendable {
    /// Where `wcs-agent --help` lists a command.
    enum Section: String, CaseIterable, Sendable {
        case daemon = "Daemon:"
        case client = "Talking to a running daemon (flags: --socket PATH | --line NAME | --config FILE, --timeout S):"
        case offline = "Without a daemon:"
        case terminal = "The ringing terminal:"
    }

    let name: String
    /// What follows the name on the command line.
    let usage: String
    /// What it does (may span lines).
    let summary: String
    let section: Section
    /// Whether it handles `--help` itself (`run` prints every flag).
    var ownHelp = false
    /// Runs the command with the arguments after the name; returns the exit code.
    let run: @Sendable ([String]) async -> Int32

    /// Every command, in `--help` order.
    static let all: [CLICommand] = [
        CLICommand(name: "run", usage: "[--config FILE] [flags]",
                   summary: "hold a WCS session in the foreground (what systemd starts)\nsee `wcs-agent run --help` and docs/config.md for flags",
                   section: .daemon, ownHelp: true, run: DaemonCommand.run),
    ] + ControlVerbs.all.filter(\.isCommand).map { verb in
        CLICommand(name: verb.name, usage: verb.usage, summary: verb.summary, section: .client) { ClientCommands.run(verb, $0) }
    } + [
        CLICommand(name: "events", usage: "[--json]", summary: "follow the daemon's events until interrupted",
                   section: .client, run: { ClientCommands.events($0) }),
        CLICommand(name: "history", usage: "[--json] [--limit N] [--state-dir DIR | --config FILE]",
                   summary: "finished calls from the call journal (calls.jsonl in the state dir)",
                   section: .offline, run: { HistoryCommand.run($0) }),
        CLICommand(name: "doctor", usage: DoctorCommand.usage, summary: DoctorCommand.summary,
                   section: .offline, ownHelp: true, run: DoctorCommand.run),
        CLICommand(name: "prompt", usage: "[--ring-timeout S] [--socket PATH | --line NAME | --config FILE]",
                   summary: "attach this terminal: rings on calls, one-key answer/hangup/hold/\nmute/DTMF/transfer, q detaches (daemon and calls keep running);\nwhen the daemon restarts it says so, waits and attaches again",
                   section: .terminal, run: PromptCommand.run),
    ]

    /// The commands by name.
    static let byName: [String: CLICommand] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The line(s) `wcs-agent --help` shows for this command: usage padded to a column, then the summary.
    var helpLines: [String] {
        let head = "  " + name + (usage.isEmpty ? "" : " " + usage)
        let lines = summary.split(separator: "\n").map(String.init)
        let indent = String(repeating: " ", count: 32)
        guard head.count < 31 else { return [head] + lines.map { indent + $0 } }
        return [head + String(repeating: " ", count: 32 - head.count) + (lines.first ?? "")] + lines.dropFirst().map { indent + $0 }
    }

    /// `wcs-agent NAME --help`.
    var help: String {
        let flags = section == .client ? " [--socket PATH | --line NAME | --config FILE] [--timeout S]" : ""
        return "usage: wcs-agent \(name)\(usage.isEmpty ? "" : " " + usage)\(flags)\n\n\(summary)"
    }
}
