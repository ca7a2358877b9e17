/// The RTP fixed header with its CSRC list and optional extension (RFC 3550 section 5.1).
///
/// The padding bit is not a header property here: `parse` excludes the padding from the
/// payload range it returns, and `RTPPacket` carries the padding length.
public struct RTPHeader: Sendable, Equatable {
    /// The only RTP version on the wire.
    public static let version: UInt8 = 2
    /// Size of the fixed part of the header.
    public static let fixedSize = 12
    /// The largest CSRC count the 4-bit CC field can carry.
    public static let maximumCSRCCount = 15

    /// The marker bit (start of a talkspurt for audio, RFC 3551 section 4.1).
    public var marker: Bool
    /// The 7-bit payload type.
    public var payloadType: UInt8
    /// The 16-bit sequence number.
    public var sequenceNumber: UInt16
    /// The media timestamp in clock-rate units.
    public var timestamp: UInt32
    /// The synchronization source.
    public var ssrc: UInt32
    /// Contributing sources (at most 15).
    public var csrcs: [UInt32]
    /// The header extension block, if the X bit is set.
    public var headerExtension: RTPHeaderExtension?

    /// A header with the given fields.
    public init(
        marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
        csrcs: [UInt32] = [], headerExtension: RTPHeaderExtension? = nil
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.headerExtension = headerExtension
    }

    /// The number of bytes `serialize` writes.
    public var serializedSize: Int {
        Self.fixedSize + 4 * csrcs.count + (headerExtension.map { 4 + $0.data.count } ?? 0)
    }

    /// Parses a header from the start of an RTP packet. Returns the header and the payload's
    /// byte range within `bytes` (padding excluded). Allocates only for a CSRC list or an
    /// extension block.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTPError) -> (header: RTPHeader, payloadRange: Range<Int>) {
        try RTPWire.require(fixedSize, in: bytes.count, "RTP fixed header")
        let first = bytes[0]
        guard first >> 6 == version else { throw .unsupportedVersion(first >> 6) }
        let hasPadding = first & 0x20 != 0
        let hasExtension = first & 0x10 != 0
        let csrcCount = Int(first & 0x0F)
        let second = bytes[1]
        var offset = fixedSize + 4 * csrcCount
        try RTPWire.require(offset, in: bytes.count, "RTP CSRC list")
        var csrcs: [UInt32] = []
        if csrcCount > 0 {
            csrcs.reserveCapacity(csrcCount)
            for index in 0..<csrcCount { csrcs.append(RTPWire.uint32(bytes, at: fixedSize + 4 * index)) }
        }
        var headerExtension: RTPHeaderExtension?
        if hasExtension {
            try RTPWire.require(offset + 4, in: bytes.count, "RTP header extension word")
            let profile = RTPWire.uint16(bytes, at: offset)
            let length = 4 * Int(RTPWire.uint16(bytes, at: offset + 2))
            offset += 4
            try RTPWire.require(offset + length, in: bytes.count, "RTP header extension data")
            let data = Array(bytes[offset..<(offset + length)])
            headerExtension = RTPHeaderExtension(validatedProfile: profile, data: data)
            offset += length
        }
        var end = bytes.count
        if hasPadding {
            let padding = Int(bytes[bytes.count - 1])
            guard padding >= 1, padding <= bytes.count - offset else {
                throw .invalidPadding("count \(padding) with \(bytes.count - offset) bytes after the header")
            }
            end -= padding
        }
        let header = RTPHeader(
            marker: second & 0x80 != 0, payloadType: second & 0x7F,
            sequenceNumber: RTPWire.uint16(bytes, at: 2), timestamp: RTPWire.uint32(bytes, at: 4),
            ssrc: RTPWire.uint32(bytes, at: 8), csrcs: csrcs, headerExtension: headerExtension)
        return (header, offset..<end)
    }

    /// Parses a header from the start of `bytes`; see `parse(_: UnsafeRawBufferPointer)`.
    public static func parse(_ bytes: [UInt8]) throws(RTPError) -> (header: RTPHeader, payloadRange: Range<Int>) {
        try RTPWire.withBytes(bytes) { raw throws(RTPError) in try parse(raw) }
    }

    /// Checks that every field fits its wire width.
    public func validate() throws(RTPError) {
        guard payloadType <= 127 else { throw .invalidField("payload type \(payloadType) exceeds 127") }
        guard csrcs.count <= Self.maximumCSRCCount else {
            throw .invalidField("\(csrcs.count) CSRCs exceed the maximum of 15")
        }
    }

    /// Appends the header to `buffer`, with the padding bit set when `padding` is true.
    public func serialize(into buffer: inout [UInt8], padding: Bool = false) throws(RTPError) {
        try validate()
        write(into: &buffer, padding: padding)
    }

    /// Appends the header without validation; callers guarantee `validate()` passes.
    func write(into buffer: inout [UInt8], padding: Bool) {
        var first = Self.version << 6 | UInt8(csrcs.count)
        if padding { first |= 0x20 }
        if headerExtension != nil { first |= 0x10 }
        buffer.append(first)
        buffer.append((marker ? 0x80 : 0) | payloadType)
        RTPWire.append(sequenceNumber, to: &buffer)
        RTPWire.append(timestamp, to: &buffer)
        RTPWire.append(ssrc, to: &buffer)
        for csrc in csrcs { RTPWire.append(csrc, to: &buffer) }
        if let headerExtension {
            RTPWire.append(headerExtension.profile, to: &buffer)
            RTPWire.append(UInt16(headerExtension.data.count / 4), to: &buffer)
            buffer.append(contentsOf: headerExtension.data)
        }
    }
}
