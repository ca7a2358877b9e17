/// A goodbye packet, RTCP packet type 203 (RFC 3550 section 6.6).
public struct RTCPGoodbye: Sendable, Equatable {
    /// The sources leaving (at most 31).
    public var sources: [UInt32]
    /// The optional reason for leaving (at most 255 UTF-8 bytes; nil when the peer's was not UTF-8).
    public var reason: String?

    /// A goodbye from its parts.
    public init(sources: [UInt32], reason: String? = nil) {
        self.sources = sources
        self.reason = reason
    }

    static func parse(_ bytes: UnsafeRawBufferPointer, body: Range<Int>, count: Int) throws(RTPError) -> RTCPGoodbye {
        try RTPWire.require(4 * count, in: body.count, "RTCP BYE with \(count) sources")
        let sources = (0..<count).map { RTPWire.uint32(bytes, at: body.lowerBound + 4 * $0) }
        let reasonStart = body.lowerBound + 4 * count
        var reason: String?
        if reasonStart < body.upperBound {
            let length = Int(bytes[reasonStart])
            try RTPWire.require(1 + length, in: body.upperBound - reasonStart, "RTCP BYE reason")
            // A reason that is not UTF-8 is left out rather than repaired: repairing could make it
            // longer than the 255 bytes a BYE can carry (found by fuzzing: it would not re-serialize).
            reason = String(validating: bytes[(reasonStart + 1)..<(reasonStart + 1 + length)], as: UTF8.self)
        }
        return RTCPGoodbye(sources: sources, reason: reason)
    }

    func validate() throws(RTPError) {
        guard sources.count <= 31 else { throw .invalidField("\(sources.count) BYE sources exceed 31") }
        if let reason, reason.utf8.count > 255 {
            throw .invalidField("BYE reason of \(reason.utf8.count) bytes exceeds 255")
        }
    }

    func writeBody(into buffer: inout [UInt8]) {
        let start = buffer.count
        for source in sources { RTPWire.append(source, to: &buffer) }
        if let reason {
            buffer.append(UInt8(reason.utf8.count))
            buffer.append(contentsOf: reason.utf8)
            RTPWire.padToWord(&buffer, from: start)
        }
    }
}

/// Any RTCP packet this layer does not interpret (APP, RTPFB, PSFB, XR, ...), kept raw so
/// that a feedback handler can decode it later.
public struct RTCPUnknownPacket: Sendable, Equatable {
    /// The packet type octet (for example 205 RTPFB, 206 PSFB, 207 XR).
    public var packetType: UInt8
    /// The 5-bit count field (the feedback message type for RTPFB/PSFB).
    public var count: UInt8
    /// The bytes after the 4-byte header, padding excluded.
    public var body: [UInt8]

    /// An unknown packet from its parts.
    public init(packetType: UInt8, count: UInt8, body: [UInt8]) {
        self.packetType = packetType
        self.count = count
        self.body = body
    }
}
