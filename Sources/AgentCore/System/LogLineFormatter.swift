#if canImport(Glibc)
import Glibc
#endif
import MainLoop

/// Turns a log record into the text written to stderr (one line per message line).
///
/// - `.journal`: `<4>session: message` (syslog priority prefix understood by journald).
/// - `.timestamped`: `2026-11-29T18:00:00.123Z WARN session: message`.
/// A message containing newlines becomes several complete, prefixed lines. Secrets registered
/// with `SecretRedactor` are masked. Every other control, bidi or format character (far-end text
/// quoted in a message: display names, call ids, server info) is escaped (`UntrustedText`), so no
/// log line can drive the terminal or the journal viewer that shows it.
struct LogLineFormatter: Sendable {
    /// The output style.
    enum Style: Sendable, Equatable {
        case journal
        case timestamped
    }

    let style: Style

    /// `.journal` when systemd connected stderr to the journal or started us as a service.
    static func style(for environment: [String: String]) -> Style {
        environment["JOURNAL_STREAM"] != nil || environment["INVOCATION_ID"] != nil ? .journal : .timestamped
    }

    /// The short upper-case level label of the timestamped style.
    static func label(_ level: LogLevel) -> String {
        switch level {
        case .debug: "DEBUG"
        case .info: "INFO"
        case .notice: "NOTICE"
        case .warning: "WARN"
        case .error: "ERROR"
        }
    }

    /// The complete text for one record, ending with a newline. `time` is seconds since 1970.
    func format(level: LogLevel, subsystem: String, message: String, time: Double) -> String {
        let prefix: String
        switch style {
        case .journal: prefix = "<\(level.syslogPriority)>\(subsystem): "
        case .timestamped: prefix = "\(Self.timestamp(time)) \(Self.label(level)) \(subsystem): "
        }
        let safe = SecretRedactor.redact(message)
        var text = ""
        // Any line break (LF, CRLF, CR...) starts a new prefixed line, so a message cannot forge entries.
        for line in safe.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            text += prefix
            text += UntrustedText.escaped(line)
            text += "\n"
        }
        return text
    }

    /// ISO 8601 UTC with milliseconds, e.g. `2026-11-29T18:00:00.123Z`.
    static func timestamp(_ time: Double) -> String {
        ISO8601Time.string(milliseconds: Int64((time * 1000).rounded()))
    }
}
