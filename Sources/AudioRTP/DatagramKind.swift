/// What a datagram on the shared ICE transport carries, by RFC 7983 (first byte) and RFC 5761
/// (RTP versus RTCP with rtcp-mux).
public enum DatagramKind: Sendable, Equatable {
    /// First byte 0-3.
    case stun
    /// First byte 16-19.
    case zrtp
    /// First byte 20-63.
    case dtls
    /// First byte 64-79.
    case turnChannel
    /// First byte 128-191 and a payload type outside RTCP's range.
    case rtp
    /// First byte 128-191 and a second byte whose low seven bits are 64-95, that is RTCP packet
    /// types 192-223 with the bit where RTP keeps its marker masked (RFC 5761 section 4).
    case rtcp
    /// Anything else (empty, or a first byte no protocol here owns): drop it.
    case unknown

    /// Classifies a datagram by its first two bytes.
    public static func classify(_ bytes: UnsafeRawBufferPointer) -> DatagramKind {
        guard let first = bytes.first else { return .unknown }
        return classify(firstByte: first, secondByte: bytes.count > 1 ? bytes[1] : nil)
    }

    /// Classifies a datagram by its first two bytes.
    public static func classify(_ bytes: [UInt8]) -> DatagramKind {
        bytes.withUnsafeBytes { classify($0) }
    }

    /// Classifies from the first byte and, for RTP/RTCP, the second; a missing second byte
    /// makes an RTP-range datagram `.unknown`.
    public static func classify(firstByte: UInt8, secondByte: UInt8?) -> DatagramKind {
        switch firstByte {
        case 0...3: return .stun
        case 16...19: return .zrtp
        case 20...63: return .dtls
        case 64...79: return .turnChannel
        case 128...191:
            guard let secondByte else { return .unknown }
            return (64...95).contains(secondByte & 0x7F) ? .rtcp : .rtp
        default: return .unknown
        }
    }
}
