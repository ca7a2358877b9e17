import Synchronization

/// Severity of a log line, ordered from most to least verbose. Raw values are not syslog
/// priorities; see `syslogPriority`.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug, info, notice, warning, error

    /// The syslog priority used for journald `<N>` prefixes.
    public var syslogPriority: Int {
        switch self {
        case .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        }
    }

    /// Parses `debug`, `info`, `notice`, `warning` (or `warn`) and `error`.
    public init?(name: String) {
        switch name.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "notice": self = .notice
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// The process-wide log sink shared by every module (libraries never print on their own).
///
/// Libraries call `Log.debug/info/...` with a subsystem name; the application installs a handler
/// (the agent writes journald-friendly lines to stderr). Callers must never pass secrets: the SIP
/// password and auth token are not to be logged at any level.
public enum Log {
    /// Receives every line at or above `minimumLevel`: level, subsystem, message.
    public typealias Handler = @Sendable (LogLevel, String, String) -> Void

    private static let state = LogState()

    /// Installs the handler and the minimum level. With no handler, lines are dropped.
    public static func configure(minimumLevel: LogLevel, handler: Handler?) {
        state.set(level: minimumLevel, handler: handler)
    }

    /// The current minimum level.
    public static var minimumLevel: LogLevel { state.current().0 }

    /// Emits a line. The message is built only when the level is enabled.
    public static func log(_ level: LogLevel, _ subsystem: String, _ message: @autoclosure () -> String) {
        let (minimum, handler) = state.current()
        guard level >= minimum, let handler else { return }
        handler(level, subsystem, message())
    }

    public static func debug(_ subsystem: String, _ message: @autoclosure () -> String) { log(.debug, subsystem, message()) }
    public static func info(_ subsystem: String, _ message: @autoclosure () -> String) { log(.info, subsystem, message()) }
    public static func notice(_ subsystem: String, _ message: @autoclosure () -> String) { log(.notice, subsystem, message()) }
    public static func warning(_ subsystem: String, _ message: @autoclosure () -> String) { log(.warning, subsystem, message()) }
    public static func error(_ subsystem: String, _ message: @autoclosure () -> String) { log(.error, subsystem, message()) }
}

/// The level and handler, read by every log call on any thread.
private final class LogState: Sendable {
    private let state = Mutex<(level: LogLevel, handler: Log.Handler?)>((.info, nil))

    func set(level: LogLevel, handler: Log.Handler?) {
        state.withLock { $0 = (level, handler) }
    }

    func current() -> (LogLevel, Log.Handler?) {
        state.withLock { ($0.level, $0.handler) }
    }
}
