import AgentCore
import FoundationEssentials
import MainLoop
import WCSSession

/// The `wcs-agent` command line: `run` starts the daemon; the other verbs talk to it. The verbs,
/// their help and their parsing come from `CLICommand.all` (client verbs from `ControlVerbs`).
public enum CLI {
    /// `wcs-agent --help`, built from the command table.
    static var usage: String {
        var lines = ["usage: wcs-agent <verb> [flags]"]
        for section in CLICommand.Section.allCases {
            lines += ["", section.rawValue] + CLICommand.all.filter { $0.section == section }.flatMap(\.helpLines)
        }
        lines += ["", "  --version, help, VERB --help", "",
                  "Exit codes: 0 ok, 1 error, 2 usage, 3 no daemon running, 4 session not back,",
                  "5 the daemon speaks another control protocol version (docs/control-protocol.md)."]
        return lines.joined(separator: "\n")
    }

    /// Runs the command line `arguments` (without the program name); returns the exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        guard let verb = arguments.first else {
            printError(usage)
            return ExitCode.usage.rawValue
        }
        let rest = Array(arguments.dropFirst())
        switch verb {
        case "--version", "version":
            print("wcs-agent \(AgentCore.version) (control protocol \(ControlProtocolVersion.current))")
            return ExitCode.ok.rawValue
        case "help", "--help", "-h":
            print(usage)
            return ExitCode.ok.rawValue
        default:
            guard let command = CLICommand.byName[verb] else {
                printError("wcs-agent: unknown verb \"\(verb)\"\n\n\(usage)")
                return ExitCode.usage.rawValue
            }
            if !command.ownHelp && (rest.contains("--help") || rest.contains("-h")) {
                print(command.help)
                return ExitCode.ok.rawValue
            }
            return await command.run(rest)
        }
    }

    static func printError(_ text: String) {
        ClientCommands.printError(text)
    }
}
