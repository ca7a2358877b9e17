/// Minimal RTP/RTCP header checks SRTP needs before handing a buffer to libsrtp.
enum RTPHeaderLength {
    /// The shortest RTCP packet: the 4-byte common header plus the sender SSRC.
    static let rtcpMinimum = 8

    /// The RTP header length (fixed part, CSRCs and header extension), or nil when the packet is
    /// not version 2 or is shorter than its own header.
    static func ofRTP(_ packet: [UInt8]) -> Int? {
        guard packet.count >= 12, packet[0] >> 6 == 2 else { return nil }
        var length = 12 + 4 * Int(packet[0] & 0x0F)
        if packet[0] & 0x10 != 0 {
            guard packet.count >= length + 4 else { return nil }
            let words = Int(packet[length + 2]) << 8 | Int(packet[length + 3])
            length += 4 + 4 * words
        }
        return packet.count >= length ? length : nil
    }

    /// True when the packet is long enough for an RTCP header and is version 2.
    static func isRTCP(_ packet: [UInt8]) -> Bool {
        packet.count >= rtcpMinimum && packet[0] >> 6 == 2
    }
}
