/// Why a telephone-event payload or a DTMF request was refused.
public enum DTMFError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A telephone-event payload is exactly 4 bytes.
    case badPayloadLength(Int)
    /// The event code is not a DTMF event (0-15) or flash (16).
    case unsupportedEvent(UInt8)
    /// The character is not one of 0-9, *, #, A-D.
    case invalidDigit(Character)
    /// The volume (power level, -dBm0) must be 0-63.
    case volumeOutOfRange(Int)
    /// A sender timing setting that cannot work (reason given).
    case invalidTiming(String)

    /// A clear reason for logs.
    public var description: String {
        switch self {
        case .badPayloadLength(let count): "telephone-event payload must be 4 bytes, got \(count)"
        case .unsupportedEvent(let code): "telephone-event code \(code) is not a DTMF event (0-16)"
        case .invalidDigit(let character): "'\(character)' is not a DTMF digit (0-9, *, #, A-D)"
        case .volumeOutOfRange(let volume): "telephone-event volume \(volume) is not 0-63"
        case .invalidTiming(let reason): "DTMF timing: \(reason)"
        }
    }
}
