/// One packet of an RTCP compound datagram.
public enum RTCPPacket: Sendable, Equatable {
    /// Packet type 200.
    case senderReport(RTCPSenderReport)
    /// Packet type 201.
    case receiverReport(RTCPReceiverReport)
    /// Packet type 202.
    case sourceDescription(RTCPSourceDescription)
    /// Packet type 203.
    case goodbye(RTCPGoodbye)
    /// Any other type, kept raw (APP 204, RTPFB 205, PSFB 206, XR 207, ...).
    case unknown(RTCPUnknownPacket)

    /// RTCP packet type octets.
    public enum PacketType {
        /// Sender report.
        public static let senderReport: UInt8 = 200
        /// Receiver report.
        public static let receiverReport: UInt8 = 201
        /// Source description.
        public static let sourceDescription: UInt8 = 202
        /// Goodbye.
        public static let goodbye: UInt8 = 203
        /// Application-defined.
        public static let application: UInt8 = 204
        /// Transport-layer feedback (RFC 4585), e.g. NACK.
        public static let transportFeedback: UInt8 = 205
        /// Payload-specific feedback (RFC 4585), e.g. PLI.
        public static let payloadFeedback: UInt8 = 206
        /// Extended reports (RFC 3611).
        public static let extendedReport: UInt8 = 207
    }

    /// The packet type octet.
    public var packetType: UInt8 {
        switch self {
        case .senderReport: PacketType.senderReport
        case .receiverReport: PacketType.receiverReport
        case .sourceDescription: PacketType.sourceDescription
        case .goodbye: PacketType.goodbye
        case let .unknown(packet): packet.packetType
        }
    }

    // MARK: Parsing

    /// Parses a compound RTCP datagram (RFC 3550 section 6.1) into its packets. Every packet
    /// must have version 2 and a length that fits; the lengths must add up to the datagram.
    /// Unknown packet types are returned as `.unknown`. The "first packet is SR/RR" rule is
    /// not enforced, so reduced-size RTCP (RFC 5506, e.g. a lone PLI) parses too.
    public static func parseCompound(_ bytes: UnsafeRawBufferPointer) throws(RTPError) -> [RTCPPacket] {
        try RTPWire.require(4, in: bytes.count, "RTCP header")
        var packets: [RTCPPacket] = []
        var offset = 0
        while offset < bytes.count {
            try RTPWire.require(4, in: bytes.count - offset, "RTCP header")
            let first = bytes[offset]
            guard first >> 6 == 2 else { throw .unsupportedVersion(first >> 6) }
            let length = 4 * (Int(RTPWire.uint16(bytes, at: offset + 2)) + 1)
            try RTPWire.require(length, in: bytes.count - offset, "RTCP packet")
            var end = offset + length
            if first & 0x20 != 0 {
                let padding = Int(bytes[end - 1])
                guard padding >= 1, padding <= length - 4 else {
                    throw .invalidPadding("RTCP padding count \(padding) in a \(length)-byte packet")
                }
                end -= padding
            }
            packets.append(try parsePacket(
                bytes, type: bytes[offset + 1], count: Int(first & 0x1F), body: (offset + 4)..<end))
            offset += length
        }
        return packets
    }

    /// Parses a compound RTCP datagram; see `parseCompound(_: UnsafeRawBufferPointer)`.
    public static func parseCompound(_ bytes: [UInt8]) throws(RTPError) -> [RTCPPacket] {
        try RTPWire.withBytes(bytes) { raw throws(RTPError) in try parseCompound(raw) }
    }

    private static func parsePacket(
        _ bytes: UnsafeRawBufferPointer, type: UInt8, count: Int, body: Range<Int>
    ) throws(RTPError) -> RTCPPacket {
        switch type {
        case PacketType.senderReport:
            .senderReport(try RTCPSenderReport.parse(bytes, body: body, count: count))
        case PacketType.receiverReport:
            .receiverReport(try RTCPReceiverReport.parse(bytes, body: body, count: count))
        case PacketType.sourceDescription:
            .sourceDescription(try RTCPSourceDescription.parse(bytes, body: body, count: count))
        case PacketType.goodbye:
            .goodbye(try RTCPGoodbye.parse(bytes, body: body, count: count))
        default:
            .unknown(RTCPUnknownPacket(packetType: type, count: UInt8(count), body: Array(bytes[body])))
        }
    }

    // MARK: Serialization

    /// Appends this packet (header, body, and RTCP padding when the body is not a multiple of
    /// four bytes). Throws when a count exceeds 31 or an item does not fit its length field.
    public func serialize(into buffer: inout [UInt8]) throws(RTPError) {
        let count: Int
        switch self {
        case let .senderReport(report): count = report.reportBlocks.count
        case let .receiverReport(report): count = report.reportBlocks.count
        case let .sourceDescription(description): try description.validate(); count = description.chunks.count
        case let .goodbye(goodbye): try goodbye.validate(); count = goodbye.sources.count
        case let .unknown(packet): count = Int(packet.count)
        }
        guard count <= 31 else { throw .invalidField("RTCP count \(count) exceeds 31") }
        let start = buffer.count
        buffer.append(2 << 6 | UInt8(count))
        buffer.append(packetType)
        buffer.append(contentsOf: [0, 0])  // length, filled in below
        switch self {
        case let .senderReport(report): report.writeBody(into: &buffer)
        case let .receiverReport(report): report.writeBody(into: &buffer)
        case let .sourceDescription(description): description.writeBody(into: &buffer)
        case let .goodbye(goodbye): goodbye.writeBody(into: &buffer)
        case let .unknown(packet): buffer.append(contentsOf: packet.body)
        }
        let unaligned = (buffer.count - start) % 4
        if unaligned != 0 {
            let padding = 4 - unaligned
            buffer.append(contentsOf: repeatElement(0, count: padding - 1))
            buffer.append(UInt8(padding))
            buffer[start] |= 0x20
        }
        let words = (buffer.count - start) / 4 - 1
        guard words <= Int(UInt16.max) else {
            buffer.removeSubrange(start...)
            throw .invalidLength("RTCP packet of \(words + 1) words exceeds the 16-bit length field")
        }
        RTPWire.store(UInt16(words), at: start + 2, in: &buffer)
    }

    /// Serializes packets back to back into one compound datagram.
    public static func serializeCompound(_ packets: [RTCPPacket]) throws(RTPError) -> [UInt8] {
        var buffer: [UInt8] = []
        for packet in packets { try packet.serialize(into: &buffer) }
        return buffer
    }

    /// The compound a sender emits: SR followed by an SDES carrying its CNAME.
    public static func senderReportCompound(_ report: RTCPSenderReport, cname: String) throws(RTPError) -> [UInt8] {
        try serializeCompound([
            .senderReport(report), .sourceDescription(RTCPSourceDescription(ssrc: report.ssrc, cname: cname)),
        ])
    }

    /// The compound a receive-only participant emits: RR followed by an SDES with its CNAME.
    public static func receiverReportCompound(_ report: RTCPReceiverReport, cname: String) throws(RTPError) -> [UInt8] {
        try serializeCompound([
            .receiverReport(report), .sourceDescription(RTCPSourceDescription(ssrc: report.ssrc, cname: cname)),
        ])
    }
}
