import AgentCore
/// One line of `wcs-agent doctor`: a verdict on one thing checked, with what was found and,
/// for a failure, what to do. A value; printed by `DoctorCommand`.
struct DoctorVerdict: Sendable, Equatable {
    enum Level: String, Sendable {
        case ok = "ok"
        case warning = "warn"
        case failure = "FAIL"
    }

    var level: Level
    /// What was checked: `config`, `credentials`, `dns`, `server`, `stun`, `turn`, `audio`, `state`.
    var topic: String
    var message: String

    static func ok(_ topic: String, _ message: String) -> DoctorVerdict { DoctorVerdict(level: .ok, topic: topic, message: message) }
    static func warning(_ topic: String, _ message: String) -> DoctorVerdict { DoctorVerdict(level: .warning, topic: topic, message: message) }
    static func failure(_ topic: String, _ message: String) -> DoctorVerdict { DoctorVerdict(level: .failure, topic: topic, message: message) }

    /// `FAIL  server       wss://...: tls: ...`
    var line: String {
        Self.column(level.rawValue, 6) + Self.column(topic, 13) + message
    }

    /// `text` cut or padded with spaces to `width` characters (as `padding(toLength:)` did).
    private static func column(_ text: String, _ width: Int) -> String {
        String(text.prefix(width)) + String(repeating: " ", count: max(0, width - text.count))
    }
}
