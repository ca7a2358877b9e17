import AgentCore
import FoundationEssentials
import MainLoop
#if canImport(Glibc)
import Glibc
#endif

/// `wcs-agent prompt [--socket PATH | --line NAME | --config FILE] [--ring-timeout SECONDS]`: attaches this
/// terminal to the running daemon. It rings on incoming calls and takes one-key commands; `q`
/// detaches and leaves the daemon and its calls running. Several prompts may attach at once: all
/// of them draw from the daemon's events and `status`, so what one does shows in the others.
///
/// With stdin and stdout on a terminal it uses raw mode and a live status block. Otherwise it
/// works line by line: state changes print as plain lines and each stdin line is a command
/// (`a`, `d`, `h`, `p`, `m`, `q`, `DIGITS` or `dtmf DIGITS`, `t TARGET`); end of input detaches.
enum PromptCommand {
    static let spec = ArgumentSpec(valueFlags: ["--socket", "--config", "--line", "--ring-timeout"])

    /// Default seconds a call rings before the caller gives up, for the countdown (the daemon's
    /// events do not carry the server's ring timeout unless a `ring_timeout` field is present).
    static let defaultRingTimeout: Double = 30

    /// Runs the prompt on dedicated threads; returns the exit code.
    static func run(_ arguments: [String]) async -> Int32 {
        await withCheckedContinuation { continuation in
            NamedThread.start("wcs-prompt", stackSize: 1 << 20) { continuation.resume(returning: runBlocking(arguments)) }
        }
    }

    private static func runBlocking(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        let ringTimeout: Double
        do {
            parsed = try ParsedArguments(arguments, spec: spec)
            if let extra = parsed.positional.first { throw UsageError("unexpected argument \"\(extra)\"") }
            let text = parsed.value("--ring-timeout")
            guard let seconds = text.map(Double.init) ?? defaultRingTimeout, seconds > 0, seconds < 3600 else {
                throw UsageError("--ring-timeout needs a number of seconds between 1 and 3599")
            }
            ringTimeout = seconds
        } catch {
            CLI.printError("wcs-agent prompt: \(error)")
            return ExitCode.usage.rawValue
        }
        let live = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        do {
            let path = try ClientCommands.socketPath(parsed)
            let connection = try PromptConnection(path: path)
            defer { connection.close() }
            let session = PromptSession(connection: connection, input: STDIN_FILENO,
                                        output: STDOUT_FILENO, live: live, ringTimeout: ringTimeout)
            var terminal: RawTerminal?
            if live {
                terminal = try RawTerminal(fd: STDIN_FILENO, onExitSignal: { _ in
                    _ = FileDescriptorIO.writeAll(STDOUT_FILENO, "\r\ndetached; wcs-agent keeps running\r\n")
                }, onResize: { session.resized() })
            }
            defer { terminal?.restore() }
            return try session.run()
        } catch let error as ControlClientError {
            CLI.printError("wcs-agent prompt: \(error)")
            if case .daemonNotRunning = error { return ExitCode.daemonNotRunning.rawValue }
            if case .protocolMismatch = error { return ExitCode.protocolMismatch.rawValue }
            return ExitCode.failure.rawValue
        } catch {
            CLI.printError("wcs-agent prompt: \(error)")
            return ExitCode.failure.rawValue
        }
    }
}
