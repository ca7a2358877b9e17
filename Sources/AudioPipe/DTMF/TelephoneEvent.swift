/// One RFC 4733 telephone-event payload:
/// `event (8) | E (1) R (1) volume (6) | duration (16, network order)`.
public struct TelephoneEvent: Sendable, Equatable {
    /// The event code: 0-9 for the digits, 10 `*`, 11 `#`, 12-15 `A`-`D`, 16 flash.
    public let event: UInt8
    /// The E bit: this packet ends the event.
    public let end: Bool
    /// The power level in -dBm0 (0-63; 0 is loudest).
    public let volume: UInt8
    /// The duration so far, in units of the event's RTP clock.
    public let duration: UInt16

    /// The DTMF keys by event code (index = code).
    private static let keys: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#", "A", "B", "C", "D"]
    /// The flash event code.
    public static let flash: UInt8 = 16

    /// Creates an event; throws for codes above 16 or volumes above 63.
    public init(event: UInt8, end: Bool, volume: UInt8 = 10, duration: UInt16) throws(DTMFError) {
        guard event <= Self.flash else { throw .unsupportedEvent(event) }
        guard volume <= 63 else { throw .volumeOutOfRange(Int(volume)) }
        self.event = event
        self.end = end
        self.volume = volume
        self.duration = duration
    }

    /// Creates the event for a DTMF key (`0`-`9`, `*`, `#`, `A`-`D`, lowercase accepted).
    public init(digit: Character, end: Bool, volume: UInt8 = 10, duration: UInt16) throws(DTMFError) {
        guard let code = Self.eventCode(for: digit) else { throw .invalidDigit(digit) }
        try self.init(event: code, end: end, volume: volume, duration: duration)
    }

    /// Decodes a 4-byte payload (the R bit is ignored, as RFC 4733 requires).
    public init(decoding payload: some Collection<UInt8>) throws(DTMFError) {
        guard payload.count == 4 else { throw .badPayloadLength(payload.count) }
        let bytes = Array(payload)
        try self.init(event: bytes[0], end: bytes[1] & 0x80 != 0, volume: bytes[1] & 0x3F,
                      duration: UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
    }

    /// The 4-byte payload (R bit zero).
    public var encoded: [UInt8] {
        [event, (end ? 0x80 : 0) | volume, UInt8(duration >> 8), UInt8(duration & 0xFF)]
    }

    /// The DTMF key, or `nil` for flash.
    public var digit: Character? { Self.digit(forEventCode: event) }

    /// The event code of a DTMF key, or `nil` if `digit` is not one (lowercase a-d accepted).
    public static func eventCode(for digit: Character) -> UInt8? {
        let key = Character(digit.uppercased())
        return keys.firstIndex(of: key).map { UInt8($0) }
    }

    /// The DTMF key of an event code 0-15, or `nil` otherwise.
    public static func digit(forEventCode code: UInt8) -> Character? {
        Int(code) < keys.count ? keys[Int(code)] : nil
    }
}
