import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop

/// Installs the agent's `Log` handler: lines on stderr, journald-style under systemd.
///
/// Under systemd (`JOURNAL_STREAM` or `INVOCATION_ID` set) each line is `<N>subsystem: message`
/// with N the syslog priority; otherwise `2026-11-29T18:00:00.123Z WARN subsystem: message`.
/// Each record is written with a single `write(2)` so concurrent lines never interleave, and every
/// line passes through `SecretRedactor`.
public enum AgentLogger {
    /// Sets the process-wide `Log` handler writing to stderr at `level` and above.
    public static func install(level: LogLevel, environment: [String: String]) {
        install(level: level, style: LogLineFormatter.style(for: environment), fileDescriptor: STDERR_FILENO)
    }

    /// Sets the handler writing to `fileDescriptor` (tests point it at a pipe).
    static func install(level: LogLevel, style: LogLineFormatter.Style, fileDescriptor: Int32) {
        Log.configure(minimumLevel: level, handler: makeHandler(style: style, fileDescriptor: fileDescriptor))
    }

    /// A handler formatting with `style` and writing each record in one `write(2)` to `fileDescriptor`.
    static func makeHandler(style: LogLineFormatter.Style, fileDescriptor: Int32) -> Log.Handler {
        let formatter = LogLineFormatter(style: style)
        return { level, subsystem, message in
            let text = formatter.format(level: level, subsystem: subsystem, message: message,
                                        time: Date().timeIntervalSince1970)
            _ = FileDescriptorIO.writeAll(fileDescriptor, text)
        }
    }
}
