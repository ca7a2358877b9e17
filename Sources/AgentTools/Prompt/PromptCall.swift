import AgentCore
import DecimalText
import FoundationEssentials
import WCSSession

/// One call as the prompt shows it, read from the daemon's `status` and events (never guessed locally).
struct PromptCall: Sendable, Equatable {
    var callId: String
    /// "incoming" or "outgoing".
    var direction: String
    /// The WCS call status, e.g. `RING`, `ESTABLISHED`, `HOLD`.
    var status: CallStatus
    var caller: String?
    var callee: String?
    var displayName: String?
    /// When the call appeared (ringing started).
    var started: Date?
    /// When the call was answered, if the daemon says so.
    var answered: Date?
    /// The daemon's mute state, when it reports one.
    var muted: Bool?
    /// The daemon's hold flag, when it reports one (besides the `HOLD` status).
    var held: Bool?
    /// Seconds the caller keeps ringing, when the daemon reports it.
    var ringTimeout: Double?
    /// The server's info string (e.g. why it ended), when an event carries it.
    var info: String?

    /// A call from an `incoming_call` or `call_status` event.
    init(_ d: CallDescription, ringTimeout: Double?) {
        callId = d.callId
        direction = d.direction ?? "incoming"
        status = CallStatus(wire: d.status)
        caller = d.caller
        callee = d.callee
        displayName = d.displayName
        started = d.started.flatMap(PromptTime.parse)
        self.ringTimeout = ringTimeout
        info = d.info
    }

    /// Reads a call object of `status` or of a call event; nil without a `call_id`.
    init?(json: JSONValue) {
        guard let id = json["call_id"]?.stringValue, !id.isEmpty else { return nil }
        callId = id
        direction = json["direction"]?.stringValue ?? "incoming"
        status = CallStatus(wire: json["status"]?.stringValue ?? "NEW")
        caller = json["caller"]?.stringValue
        callee = json["callee"]?.stringValue
        displayName = json["display_name"]?.stringValue
        started = json["started"]?.stringValue.flatMap(PromptTime.parse)
        answered = (json["answered"] ?? json["answered_at"])?.stringValue.flatMap(PromptTime.parse)
        muted = json["muted"]?.boolValue
        held = (json["held"] ?? json["on_hold"])?.boolValue
        ringTimeout = (json["ring_timeout"] ?? json["ring_timeout_seconds"]).flatMap(PromptTime.seconds)
    }

    /// True while an incoming call can still be answered or declined.
    var isRingingIn: Bool { direction == "incoming" && status.isRinging }

    /// True while the call is up (talking or on hold).
    var isActive: Bool { status == .established || status == .hold }

    /// True when the call is on hold.
    var isOnHold: Bool { status == .hold || held == true }

    /// The other party: `Alice <1002>` or `1002`.
    var party: String {
        let number = (direction == "outgoing" ? callee : caller) ?? "unknown"
        if direction == "incoming", let name = displayName, !name.isEmpty, name != number { return "\(name) <\(number)>" }
        return number
    }
}

/// Time helpers for the prompt: ISO 8601 parsing and lenient number reading.
enum PromptTime {
    /// Parses `2025-01-02T03:04:05.678Z` (fractional seconds optional).
    static func parse(_ text: String) -> Date? {
        ISO8601Time.date(text)
    }

    /// A JSON number or numeric string as seconds.
    static func seconds(_ value: JSONValue) -> Double? {
        if case .number(let n) = value { return n }
        return value.stringValue.flatMap(Double.init)
    }

    /// `m:ss` or `h:mm:ss`.
    static func clock(_ seconds: Double) -> String {
        let s = max(0, Int(seconds))
        let secondsText = DecimalText.zeroPadded(s % 60, width: 2)
        if s >= 3600 { return "\(s / 3600):\(DecimalText.zeroPadded(s / 60 % 60, width: 2)):\(secondsText)" }
        return "\(s / 60):\(secondsText)"
    }
}
