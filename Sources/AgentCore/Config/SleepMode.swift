/// When the agent sleeps on its own (`[agent] sleep`): `never` (the default: online all the time;
/// `wcs-agent sleep` still puts it to sleep until the next push or `reconnect`), or `idle:SECONDS`
/// (a battery or bandwidth-limited device: it sleeps once it has been online SECONDS without a call,
/// and after every push-woken call; it holds a socket only for calls and keep-time refreshes).
public enum SleepMode: Sendable, Equatable, CustomStringConvertible {
    case never
    case idle(seconds: Double)

    /// The largest idle time accepted, in seconds (a day).
    public static let maximumIdle: Double = 86400

    /// Parses `never` or `idle:SECONDS` (seconds >= 0, at most a day).
    public init(parsing text: String) throws(ConfigError) {
        let value = text.lowercased()
        if value == "never" {
            self = .never
            return
        }
        guard value.hasPrefix("idle:"), let seconds = ConfigValue.seconds(String(value.dropFirst(5))),
              (0...Self.maximumIdle).contains(seconds)
        else {
            throw ConfigError("invalid sleep \"\(text)\": expected never or idle:SECONDS (0-\(Int(Self.maximumIdle)))")
        }
        self = .idle(seconds: seconds)
    }

    /// Seconds online without a call before the agent sleeps; nil for `never`.
    public var idleSeconds: Double? {
        if case .idle(let seconds) = self { seconds } else { nil }
    }

    public var description: String {
        switch self {
        case .never: "never"
        case .idle(let seconds): "idle:\(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds))"
        }
    }
}
