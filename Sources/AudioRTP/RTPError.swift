/// Why an RTP or RTCP packet could not be parsed or built.
///
/// Every parser in the RTP layer reports malformed input with one of these cases instead of
/// trapping; the associated text says which part of the packet was wrong.
public enum RTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ends before a structure it announces: `what` was cut short, `needed` bytes
    /// were required and only `available` were present.
    case truncated(what: String, needed: Int, available: Int)
    /// The version field is not 2 (RFC 3550 section 5.1).
    case unsupportedVersion(UInt8)
    /// The padding bit is set but the padding count is zero or larger than the packet allows.
    case invalidPadding(String)
    /// A length field disagrees with the data (RTCP length words, SDES or BYE contents).
    case invalidLength(String)
    /// A header extension or one of its RFC 8285 elements is malformed or cannot be encoded.
    case invalidHeaderExtension(String)
    /// A field value cannot be represented on the wire (for example a payload type above 127).
    case invalidField(String)

    /// A one-line explanation suitable for logs.
    public var description: String {
        switch self {
        case let .truncated(what, needed, available):
            "truncated \(what): needs \(needed) bytes, has \(available)"
        case let .unsupportedVersion(version):
            "unsupported RTP/RTCP version \(version) (expected 2)"
        case let .invalidPadding(detail):
            "invalid padding: \(detail)"
        case let .invalidLength(detail):
            "invalid length: \(detail)"
        case let .invalidHeaderExtension(detail):
            "invalid header extension: \(detail)"
        case let .invalidField(detail):
            "invalid field: \(detail)"
        }
    }
}
