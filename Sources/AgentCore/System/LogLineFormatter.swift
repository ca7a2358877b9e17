#if canImport(Glibc)
import Glibc
#endif
import MainLoop

/// Turns a log record into the text written to stderr (one line per message line).
///
/// - `.journal`: `<4>session: message` (syslog priority prefix understood by journald).
/// - `.timestamped`: `2026-11-29T18:00:00.123Z WARN session: message`.
/// A message containing newlines becomes several complete, prefixed lines. Secrets registered
/// with `SecretRedactor` are masked.
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
        for line in safe.split(separator: "\n", omittingEmptySubsequences: false) {
            text += prefix
            text += line.hasSuffix("\r") ? line.dropLast() : line
            text += "\n"
        }
        return text
    }

    /// ISO 8601 UTC with milliseconds, e.g. `2026-11-29T18:00:00.123Z`.
    static func timestamp(_ time: Double) -> String {
        var seconds = time_t(time.rounded(.down))
        var millis = Int((time - Double(seconds)) * 1000)
        if millis >= 1000 { millis = 999 }
        if millis < 0 { millis = 0 }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }
}
