/// A whole RTP packet: header, payload and optional padding, owning its bytes.
///
/// For the receive path, `RTPHeader.parse` gives the header and the payload's range without
/// copying the payload; `RTPPacket` is the convenient owning form for tests, tools and
/// anything that keeps packets around.
public struct RTPPacket: Sendable, Equatable {
    /// The header.
    public var header: RTPHeader
    /// The payload (padding excluded).
    public var payload: [UInt8]
    /// Number of padding bytes, including the final count byte: 0 (none) or 1-255.
    public var paddingLength: Int

    /// A packet from its parts.
    public init(header: RTPHeader, payload: [UInt8], paddingLength: Int = 0) {
        self.header = header
        self.payload = payload
        self.paddingLength = paddingLength
    }

    /// Parses a datagram; throws `RTPError` for malformed input.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let (header, range) = try RTPHeader.parse(bytes)
        self.init(header: header, payload: Array(bytes[range]), paddingLength: bytes.count - range.upperBound)
    }

    /// Parses a datagram; throws `RTPError` for malformed input.
    public init(parsing bytes: [UInt8]) throws(RTPError) {
        let (header, range) = try RTPHeader.parse(bytes)
        self.init(header: header, payload: Array(bytes[range]), paddingLength: bytes.count - range.upperBound)
    }

    /// The number of bytes `serialized()` produces.
    public var serializedSize: Int { header.serializedSize + payload.count + paddingLength }

    /// Appends the packet to `buffer`.
    public func serialize(into buffer: inout [UInt8]) throws(RTPError) {
        guard (0...255).contains(paddingLength) else {
            throw .invalidPadding("padding length \(paddingLength) is outside 0-255")
        }
        try header.serialize(into: &buffer, padding: paddingLength > 0)
        buffer.append(contentsOf: payload)
        if paddingLength > 0 {
            buffer.append(contentsOf: repeatElement(0, count: paddingLength - 1))
            buffer.append(UInt8(paddingLength))
        }
    }

    /// The packet's wire bytes.
    public func serialized() throws(RTPError) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(serializedSize)
        try serialize(into: &buffer)
        return buffer
    }
}
