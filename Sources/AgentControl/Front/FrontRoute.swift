/// What the lean `wcs-agent` front does with a command line: answer it itself, or hand it to the
/// full binary (`FullBinary`). Pure; decided from the arguments alone.
///
/// The front keeps to what a push handler or a script runs often and what needs nothing but the
/// control socket: `--version`, the client verbs of `ControlVerbs.names` (`status --all` too) and
/// `events`. Everything else — `run`, `prompt`, `doctor`, `history`, `--help` of anything, an
/// unknown verb — goes to the full binary, which prints and exits exactly as it always did.
public enum FrontRoute: Equatable, Sendable {
    /// `wcs-agent --version`.
    case version
    /// A client verb, with the arguments after its name.
    case client(verb: String, arguments: [String])
    /// `wcs-agent events ...`, with the arguments after `events`.
    case events(arguments: [String])
    /// Anything else: exec the full binary with the command line unchanged.
    case fullBinary

    /// The route for `arguments` (without the program name).
    public init(_ arguments: [String]) {
        guard let verb = arguments.first else {
            self = .fullBinary
            return
        }
        let rest = Array(arguments.dropFirst())
        if verb == "--version" || verb == "version" {
            self = .version
        } else if rest.contains("--help") || rest.contains("-h") {
            self = .fullBinary
        } else if let entry = ControlVerbs.named(verb), entry.isCommand {
            self = .client(verb: verb, arguments: rest)
        } else if verb == "events" {
            self = .events(arguments: rest)
        } else {
            self = .fullBinary
        }
    }

    /// The `--version` line (the full binary prints the same).
    public static var versionLine: String {
        "wcs-agent \(AgentVersion.version) (control protocol \(ControlProtocolVersion.current))"
    }
}
