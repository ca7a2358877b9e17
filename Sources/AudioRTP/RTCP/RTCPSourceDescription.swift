/// A source description packet, RTCP packet type 202 (RFC 3550 section 6.5).
public struct RTCPSourceDescription: Sendable, Equatable {
    /// An SDES item type (RFC 3550 section 6.5); unknown values are kept.
    public struct ItemType: RawRepresentable, Sendable, Hashable {
        /// The type octet.
        public var rawValue: UInt8
        /// A type from its octet.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Canonical end-point identifier, the only item RTCP requires.
        public static let cname = ItemType(rawValue: 1)
        /// User name.
        public static let name = ItemType(rawValue: 2)
        /// E-mail address.
        public static let email = ItemType(rawValue: 3)
        /// Phone number.
        public static let phone = ItemType(rawValue: 4)
        /// Geographic location.
        public static let location = ItemType(rawValue: 5)
        /// Application or tool name.
        public static let tool = ItemType(rawValue: 6)
        /// Notice or status.
        public static let note = ItemType(rawValue: 7)
        /// Private extension.
        public static let privateExtension = ItemType(rawValue: 8)
    }

    /// One item: a type and up to 255 bytes of (normally UTF-8) text.
    public struct Item: Sendable, Equatable {
        /// The item type (never 0, which ends a chunk on the wire).
        public var type: ItemType
        /// The item's bytes.
        public var value: [UInt8]
        /// An item with raw bytes.
        public init(type: ItemType, value: [UInt8]) {
            self.type = type
            self.value = value
        }
        /// An item holding UTF-8 text.
        public init(type: ItemType, text: String) {
            self.init(type: type, value: Array(text.utf8))
        }
        /// The value decoded as UTF-8 (invalid sequences replaced).
        public var text: String { String(decoding: value, as: UTF8.self) }
    }

    /// The items describing one SSRC or CSRC.
    public struct Chunk: Sendable, Equatable {
        /// The described source.
        public var ssrc: UInt32
        /// Its items.
        public var items: [Item]
        /// A chunk from its parts.
        public init(ssrc: UInt32, items: [Item]) {
            self.ssrc = ssrc
            self.items = items
        }
    }

    /// The chunks (at most 31 per packet).
    public var chunks: [Chunk]

    /// A description from its chunks.
    public init(chunks: [Chunk]) { self.chunks = chunks }

    /// The usual description: one chunk with a CNAME.
    public init(ssrc: UInt32, cname: String) {
        self.init(chunks: [Chunk(ssrc: ssrc, items: [Item(type: .cname, text: cname)])])
    }

    /// The CNAME given for `ssrc`, if any.
    public func cname(for ssrc: UInt32) -> String? {
        chunks.first { $0.ssrc == ssrc }?.items.first { $0.type == .cname }?.text
    }

    static func parse(_ bytes: UnsafeRawBufferPointer, body: Range<Int>, count: Int) throws(RTPError) -> RTCPSourceDescription {
        var chunks: [Chunk] = []
        var offset = body.lowerBound
        for _ in 0..<count {
            try RTPWire.require(4, in: body.upperBound - offset, "RTCP SDES chunk")
            let chunkStart = offset
            let ssrc = RTPWire.uint32(bytes, at: offset)
            offset += 4
            var items: [Item] = []
            // Items run until a null octet; tolerate a chunk that ends with the packet instead.
            while offset < body.upperBound {
                let type = bytes[offset]
                if type == 0 {
                    offset += 1
                    while (offset - chunkStart) % 4 != 0 { offset += 1 }
                    break
                }
                try RTPWire.require(2, in: body.upperBound - offset, "RTCP SDES item header")
                let length = Int(bytes[offset + 1])
                try RTPWire.require(2 + length, in: body.upperBound - offset, "RTCP SDES item")
                items.append(Item(type: ItemType(rawValue: type), value: Array(bytes[(offset + 2)..<(offset + 2 + length)])))
                offset += 2 + length
            }
            guard offset <= body.upperBound else {
                throw .invalidLength("SDES chunk padding runs past the packet end")
            }
            chunks.append(Chunk(ssrc: ssrc, items: items))
        }
        return RTCPSourceDescription(chunks: chunks)
    }

    func validate() throws(RTPError) {
        guard chunks.count <= 31 else { throw .invalidField("\(chunks.count) SDES chunks exceed 31") }
        for chunk in chunks {
            for item in chunk.items {
                guard item.type.rawValue != 0 else { throw .invalidField("SDES item type 0 is reserved for the end marker") }
                guard item.value.count <= 255 else { throw .invalidField("SDES item of \(item.value.count) bytes exceeds 255") }
            }
        }
    }

    func writeBody(into buffer: inout [UInt8]) {
        for chunk in chunks {
            let chunkStart = buffer.count
            RTPWire.append(chunk.ssrc, to: &buffer)
            for item in chunk.items {
                buffer.append(item.type.rawValue)
                buffer.append(UInt8(item.value.count))
                buffer.append(contentsOf: item.value)
            }
            buffer.append(0)  // end of items; then pad the chunk to a 32-bit boundary
            RTPWire.padToWord(&buffer, from: chunkStart)
        }
    }
}
