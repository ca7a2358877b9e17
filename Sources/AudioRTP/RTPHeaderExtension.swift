/// The two element encodings of RFC 8285 ("A General Mechanism for RTP Header Extensions").
public enum RTPHeaderExtensionForm: Sendable, Equatable {
    /// Profile 0xBEDE: ids 1-14, 1-16 data bytes per element.
    case oneByte
    /// Profile 0x100X: ids 1-255, 0-255 data bytes per element.
    case twoByte
}

/// One RFC 8285 element: a locally negotiated id (`a=extmap`) and its data.
public struct RTPHeaderExtensionElement: Sendable, Equatable {
    /// The extmap id.
    public var id: UInt8
    /// The element's data bytes.
    public var data: [UInt8]

    /// An element with the given id and data.
    public init(id: UInt8, data: [UInt8]) {
        self.id = id
        self.data = data
    }
}

/// An RTP header extension block (RFC 3550 section 5.3.1), kept raw.
///
/// `data` is the block after the 4-byte profile/length word, always a multiple of four bytes
/// long. When the profile is one of the RFC 8285 forms, `elements()` and `element(id:)` decode
/// it on demand, so parsing a packet never allocates for elements nobody reads.
public struct RTPHeaderExtension: Sendable, Equatable {
    /// The "defined by profile" value of the one-byte form.
    public static let oneByteProfile: UInt16 = 0xBEDE
    /// The "defined by profile" value of the two-byte form (the low four bits are app bits).
    public static let twoByteProfile: UInt16 = 0x1000

    /// The 16-bit "defined by profile" field.
    public let profile: UInt16
    /// The extension data, excluding the profile/length word; a multiple of four bytes.
    public let data: [UInt8]

    /// A raw extension block. Throws when `data` is not a multiple of four bytes or longer
    /// than the 16-bit length field can describe.
    public init(profile: UInt16, data: [UInt8]) throws(RTPError) {
        guard data.count % 4 == 0 else {
            throw .invalidHeaderExtension("data length \(data.count) is not a multiple of 4")
        }
        guard data.count / 4 <= Int(UInt16.max) else {
            throw .invalidHeaderExtension("data length \(data.count) exceeds 65535 words")
        }
        self.profile = profile
        self.data = data
    }

    /// Encodes RFC 8285 elements. With `form` nil the one-byte form is used when every element
    /// fits it (id 1-14, 1-16 bytes), otherwise the two-byte form. The block is zero-padded to
    /// a multiple of four bytes.
    public init(elements: [RTPHeaderExtensionElement], form: RTPHeaderExtensionForm? = nil) throws(RTPError) {
        let fitsOneByte = elements.allSatisfy { (1...14).contains($0.id) && (1...16).contains($0.data.count) }
        let chosen = form ?? (fitsOneByte ? .oneByte : .twoByte)
        var bytes: [UInt8] = []
        switch chosen {
        case .oneByte:
            guard fitsOneByte else {
                throw .invalidHeaderExtension("one-byte form needs ids 1-14 and 1-16 data bytes per element")
            }
            for element in elements {
                bytes.append(element.id << 4 | UInt8(element.data.count - 1))
                bytes.append(contentsOf: element.data)
            }
        case .twoByte:
            for element in elements {
                guard element.id != 0, element.data.count <= 255 else {
                    throw .invalidHeaderExtension("two-byte form needs ids 1-255 and at most 255 data bytes")
                }
                bytes.append(element.id)
                bytes.append(UInt8(element.data.count))
                bytes.append(contentsOf: element.data)
            }
        }
        RTPWire.padToWord(&bytes, from: 0)
        try self.init(profile: chosen == .oneByte ? Self.oneByteProfile : Self.twoByteProfile, data: bytes)
    }

    /// Wraps bytes already validated by the RTP parser.
    init(validatedProfile profile: UInt16, data: [UInt8]) {
        self.profile = profile
        self.data = data
    }

    /// The RFC 8285 form of this block, or nil for any other profile.
    public var form: RTPHeaderExtensionForm? {
        if profile == Self.oneByteProfile { return .oneByte }
        if profile & 0xFFF0 == Self.twoByteProfile { return .twoByte }
        return nil
    }

    /// Decodes every RFC 8285 element. Returns an empty list for non-RFC 8285 profiles; throws
    /// when an element runs past the end of the block.
    public func elements() throws(RTPError) -> [RTPHeaderExtensionElement] {
        var result: [RTPHeaderExtensionElement] = []
        try forEachElement { id, range in
            result.append(RTPHeaderExtensionElement(id: id, data: Array(data[range])))
            return true
        }
        return result
    }

    /// The data of the first element with `id`, or nil when absent or the block is malformed.
    public func element(id: UInt8) -> ArraySlice<UInt8>? {
        var found: Range<Int>?
        do {
            try forEachElement { elementID, range in
                if elementID == id { found = range; return false }
                return true
            }
        } catch {
            return nil
        }
        return found.map { data[$0] }
    }

    /// Walks the elements in order; `body` returns false to stop early.
    private func forEachElement(_ body: (UInt8, Range<Int>) -> Bool) throws(RTPError) {
        guard let form else { return }
        var index = 0
        while index < data.count {
            let first = data[index]
            if first == 0 { index += 1; continue }  // padding byte
            let id: UInt8
            let length: Int
            switch form {
            case .oneByte:
                id = first >> 4
                if id == 15 { return }  // reserved id: stop processing (RFC 8285 section 4.2)
                length = Int(first & 0x0F) + 1
                index += 1
            case .twoByte:
                guard index + 1 < data.count else {
                    throw .invalidHeaderExtension("two-byte element \(first) has no length byte")
                }
                id = first
                length = Int(data[index + 1])
                index += 2
            }
            guard index + length <= data.count else {
                throw .invalidHeaderExtension("element \(id) needs \(length) bytes, \(data.count - index) left")
            }
            if !body(id, index..<(index + length)) { return }
            index += length
        }
    }
}
