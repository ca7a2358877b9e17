/// What the lean `wcs-agent` front does with a command line: answer it itself, or hand it to the
/// full binary (`FullBinary`). Pure; decided from the arguments alone.
///
/// The front keeps to what a push handler or a script runs often and what needs nothing but the
/// control socket: `--version` and the client verbs of `ControlVerbs.all` (`status --all` too),
/// and `events --json`. Everything else — `run`, `prompt`, `doctor`, `history`, human `events`,
/// `--help` of anything, usage errors in the verb name — goes to the full binary, which prints and
/// exits exactly as it always did.
public enum FrontRoute: Equatable, Sendable {
    /// `wcs-agent --version`.
    case version
    /// A client verb, with the arguments after its name.
    case client(verb: String, arguments: [String])
    /// `wcs-agent events --json ...`, with the arguments after `events`.
    case jsonEvents(arguments: [String])
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
        } else if let entry = ControlVerbs.byName[verb], entry.isCommand {
            self = .client(verb: verb, arguments: rest)
        } else if verb == "events" && rest.contains("--json") {
            self = .jsonEvents(arguments: rest)
        } else {
            self = .fullBinary
        }
    }

    /// The `--version` line (the full binary prints the same).
    public static var versionLine: String {
        "wcs-agent \(AgentVersion.version) (control protocol \(ControlProtocolVersion.current))"
    }
}
