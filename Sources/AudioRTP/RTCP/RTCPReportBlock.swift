/// One reception report block of an SR or RR (RFC 3550 section 6.4.1), 24 bytes on the wire.
public struct RTCPReportBlock: Sendable, Equatable {
    /// Size of a block on the wire.
    public static let size = 24
    /// The largest and smallest values of the signed 24-bit cumulative-lost field.
    public static let cumulativeLostRange: ClosedRange<Int32> = -0x80_0000...0x7F_FFFF

    /// The source this block reports on.
    public var ssrc: UInt32
    /// Fraction of packets lost since the previous report, in 1/256 units.
    public var fractionLost: UInt8
    /// Cumulative packets lost (signed 24-bit; duplicates can make it negative).
    public var cumulativeLost: Int32
    /// Cycle count in the high 16 bits, highest sequence number in the low 16.
    public var extendedHighestSequence: UInt32
    /// Interarrival jitter in timestamp units.
    public var jitter: UInt32
    /// The middle 32 bits of the NTP timestamp of the last SR from this source (LSR), or 0.
    public var lastSenderReport: UInt32
    /// Delay since that SR was received, in 1/65536 s (DLSR), or 0.
    public var delaySinceLastSenderReport: UInt32

    /// A report block from its fields.
    public init(
        ssrc: UInt32, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, extendedHighestSequence: UInt32 = 0,
        jitter: UInt32 = 0, lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// Parses the report section of an SR or RR: `count` blocks after `fixedBytes` of fixed
    /// fields, then the raw profile extension up to the end of `body`.
    static func parseReports(
        _ bytes: UnsafeRawBufferPointer, body: Range<Int>, fixedBytes: Int, count: Int, kind: String
    ) throws(RTPError) -> (blocks: [RTCPReportBlock], profileExtension: [UInt8]) {
        let needed = fixedBytes + count * size
        try RTPWire.require(needed, in: body.count, "RTCP \(kind) with \(count) report blocks")
        let blocks = parseList(bytes, at: body.lowerBound + fixedBytes, count: count)
        return (blocks, Array(bytes[(body.lowerBound + needed)..<body.upperBound]))
    }

    /// Appends report blocks and a profile extension.
    static func writeReports(_ blocks: [RTCPReportBlock], profileExtension: [UInt8], into buffer: inout [UInt8]) {
        for block in blocks { block.write(into: &buffer) }
        buffer.append(contentsOf: profileExtension)
    }

    /// Parses `count` blocks starting at `offset`; the caller has checked the length.
    private static func parseList(_ bytes: UnsafeRawBufferPointer, at offset: Int, count: Int) -> [RTCPReportBlock] {
        var blocks: [RTCPReportBlock] = []
        blocks.reserveCapacity(count)
        for index in 0..<count {
            let base = offset + index * size
            let lossWord = RTPWire.uint32(bytes, at: base + 4)
            var cumulative = Int32(lossWord & 0xFF_FFFF)
            if cumulative & 0x80_0000 != 0 { cumulative -= 0x100_0000 }
            blocks.append(RTCPReportBlock(
                ssrc: RTPWire.uint32(bytes, at: base), fractionLost: UInt8(lossWord >> 24),
                cumulativeLost: cumulative, extendedHighestSequence: RTPWire.uint32(bytes, at: base + 8),
                jitter: RTPWire.uint32(bytes, at: base + 12), lastSenderReport: RTPWire.uint32(bytes, at: base + 16),
                delaySinceLastSenderReport: RTPWire.uint32(bytes, at: base + 20)))
        }
        return blocks
    }

    /// Appends the block; the cumulative count saturates at the 24-bit limits.
    func write(into buffer: inout [UInt8]) {
        let clamped = min(max(cumulativeLost, Self.cumulativeLostRange.lowerBound), Self.cumulativeLostRange.upperBound)
        RTPWire.append(ssrc, to: &buffer)
        RTPWire.append(UInt32(fractionLost) << 24 | UInt32(bitPattern: clamped) & 0xFF_FFFF, to: &buffer)
        RTPWire.append(extendedHighestSequence, to: &buffer)
        RTPWire.append(jitter, to: &buffer)
        RTPWire.append(lastSenderReport, to: &buffer)
        RTPWire.append(delaySinceLastSenderReport, to: &buffer)
    }
}
