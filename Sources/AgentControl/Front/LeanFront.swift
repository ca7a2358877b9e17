/// The lean `wcs-agent` front's command line: routes (`FrontRoute`), answers client verbs over the
/// control socket through the same `ClientCommands` the full binary uses, and execs the full
/// binary for the rest. Runs on the process's main thread, synchronously: no async runtime, no
/// GLib, no TLS, no Foundation, so a push handler's `wcs-agent reconnect` starts in milliseconds.
public enum LeanFront {
    /// Runs `argv` (program name first); returns the exit code, or does not return (exec).
    public static func main(_ argv: [String], environment: [String: String]) -> Int32 {
        switch FrontRoute(Array(argv.dropFirst())) {
        case .version:
            print(FrontRoute.versionLine)
            return ExitCode.ok.rawValue
        case .client(let verb, let arguments):
            guard let entry = ControlVerbs.named(verb) else { return ExitCode.usage.rawValue }
            return ClientCommands.run(entry, arguments)
        case .events(let arguments):
            return ClientCommands.events(arguments)
        case .fullBinary:
            let candidates = FullBinary.candidates(frontPath: FullBinary.ownPath(), environment: environment)
            ClientCommands.printError("wcs-agent: " + FullBinary.exec(argv, candidates: candidates))
            return ExitCode.failure.rawValue
        }
    }
}
