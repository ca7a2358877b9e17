/// The status of a call as the WCS protocol names it (protocol doc §4.2).
///
/// `NEW` and `PENDING` are local states; the rest arrive in `data[0].status` of call status
/// messages. Unknown strings are kept in `.other` so a newer server never breaks the client.
public enum CallStatus: Sendable, Hashable, CustomStringConvertible {
    case new, pending, trying, ring, ringMedia, sessionProgress, established, hold, busy, finish, failed
    case other(String)

    /// Reads the wire string, e.g. `"RING_MEDIA"`.
    public init(wire: String) {
        switch wire.uppercased() {
        case "NEW": self = .new
        case "PENDING": self = .pending
        case "TRYING": self = .trying
        case "RING": self = .ring
        case "RING_MEDIA": self = .ringMedia
        case "SESSION_PROGRESS": self = .sessionProgress
        case "ESTABLISHED": self = .established
        case "HOLD": self = .hold
        case "BUSY": self = .busy
        case "FINISH": self = .finish
        case "FAILED": self = .failed
        default: self = .other(wire)
        }
    }

    /// The wire string, e.g. `"ESTABLISHED"`.
    public var wire: String {
        switch self {
        case .new: "NEW"
        case .pending: "PENDING"
        case .trying: "TRYING"
        case .ring: "RING"
        case .ringMedia: "RING_MEDIA"
        case .sessionProgress: "SESSION_PROGRESS"
        case .established: "ESTABLISHED"
        case .hold: "HOLD"
        case .busy: "BUSY"
        case .finish: "FINISH"
        case .failed: "FAILED"
        case .other(let s): s
        }
    }

    /// `FINISH`, `BUSY` and `FAILED` end a call (the client then releases it).
    public var isTerminal: Bool {
        switch self {
        case .finish, .busy, .failed: true
        default: false
        }
    }

    /// Ringing states in which an incoming call can still be answered.
    public var isRinging: Bool {
        switch self {
        case .new, .ring, .ringMedia, .sessionProgress: true
        default: false
        }
    }

    public var description: String { wire }
}

/// The DTMF signalling method of `sendDtmf` (protocol doc §2.9, §7.5).
public enum DTMFType: String, Sendable, CaseIterable {
    case rfc2833 = "RFC2833"
    case info = "INFO"
    case infoRelay = "INFO_RELAY"
}
