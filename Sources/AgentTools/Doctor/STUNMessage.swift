import AgentCore
import CSSL
import FoundationEssentials

/// A STUN message (RFC 5389/8489) as the doctor's probes need it: Binding and TURN Allocate
/// (RFC 5766/8656) requests with long-term-credential MESSAGE-INTEGRITY, and the attributes of
/// their answers. Pure byte work; runs on the calling thread.
struct STUNMessage {
    static let magicCookie: UInt32 = 0x2112_A442

    enum Method: UInt16 { case binding = 0x001, allocate = 0x003, refresh = 0x004 }
    enum Class: UInt16 { case request = 0x000, success = 0x100, error = 0x110 }
    enum Attribute: UInt16 {
        case username = 0x0006, messageIntegrity = 0x0008, errorCode = 0x0009, lifetime = 0x000D
        case realm = 0x0014, nonce = 0x0015, xorRelayedAddress = 0x0016, requestedTransport = 0x0019
        case xorMappedAddress = 0x0020
    }

    var method: Method
    var messageClass: Class
    var transactionID: [UInt8]
    var attributes: [(type: UInt16, value: [UInt8])] = []

    /// A request with a fresh transaction id.
    init(request method: Method) {
        self.method = method
        messageClass = .request
        transactionID = (0..<12).map { _ in UInt8.random(in: 0...255) }
    }

    /// The value of the first attribute of `type`.
    func value(_ type: Attribute) -> [UInt8]? { attributes.first { $0.type == type.rawValue }?.value }

    /// ERROR-CODE as a number (e.g. 401), if present.
    var errorCode: Int? { value(.errorCode).flatMap { $0.count >= 4 ? Int($0[2] & 0x7) * 100 + Int($0[3]) : nil } }

    /// An XOR-MAPPED-ADDRESS or XOR-RELAYED-ADDRESS as `address:port`.
    func address(_ type: Attribute) -> String? {
        guard let v = value(type), v.count >= 8 else { return nil }
        let port = (UInt16(v[2]) << 8 | UInt16(v[3])) ^ UInt16(Self.magicCookie >> 16)
        let cookie = withUnsafeBytes(of: Self.magicCookie.bigEndian, Array.init)
        if v[1] == 0x01 {
            return (0..<4).map { String(v[4 + $0] ^ cookie[$0]) }.joined(separator: ".") + ":\(port)"
        }
        guard v.count >= 20 else { return nil }
        let mask = cookie + transactionID
        let bytes = (0..<16).map { v[4 + $0] ^ mask[$0] }
        let groups = stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return "[\(groups.joined(separator: ":"))]:\(port)"
    }

    mutating func add(_ type: Attribute, _ value: [UInt8]) { attributes.append((type.rawValue, value)) }

    /// The wire bytes; with `integrityKey`, a MESSAGE-INTEGRITY attribute (HMAC-SHA1) ends them.
    func encoded(integrityKey: [UInt8]? = nil) -> [UInt8] {
        var body: [UInt8] = []
        for (type, value) in attributes {
            body += Self.be16(type) + Self.be16(UInt16(value.count)) + value
            body += [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        }
        let type = method.rawValue | messageClass.rawValue
        func header(_ length: Int) -> [UInt8] {
            Self.be16(type) + Self.be16(UInt16(length)) + withUnsafeBytes(of: Self.magicCookie.bigEndian, Array.init) + transactionID
        }
        guard let key = integrityKey else { return header(body.count) + body }
        let signed = header(body.count + 24) + body
        var mac = [UInt8](repeating: 0, count: 20)
        var macLength: UInt32 = 20
        _ = key.withUnsafeBytes { k in signed.withUnsafeBytes { d in
            HMAC(EVP_sha1(), k.baseAddress, Int32(key.count), d.baseAddress?.assumingMemoryBound(to: UInt8.self), d.count, &mac, &macLength)
        } }
        return signed + Self.be16(Attribute.messageIntegrity.rawValue) + Self.be16(20) + mac
    }

    /// The long-term credential key: MD5(username:realm:password).
    static func longTermKey(user: String, realm: String, password: String) -> [UInt8] {
        let input = Array("\(user):\(realm):\(password)".utf8)
        var digest = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 16
        _ = input.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_md5(), nil) }
        return digest
    }

    /// Reads a message; nil when `bytes` is not one (or not whole).
    init?(decoding bytes: [UInt8]) {
        guard bytes.count >= 20, bytes[0] & 0xC0 == 0 else { return nil }
        let type = UInt16(bytes[0]) << 8 | UInt16(bytes[1]), length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard bytes[4..<8].elementsEqual(withUnsafeBytes(of: Self.magicCookie.bigEndian, Array.init)), bytes.count >= 20 + length,
              let method = Method(rawValue: type & 0x3EEF), let messageClass = Class(rawValue: type & 0x0110) else { return nil }
        self.method = method
        self.messageClass = messageClass
        transactionID = Array(bytes[8..<20])
        var offset = 20
        while offset + 4 <= 20 + length {
            let attributeType = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let attributeLength = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard offset + 4 + attributeLength <= bytes.count else { return nil }
            attributes.append((attributeType, Array(bytes[offset + 4..<offset + 4 + attributeLength])))
            offset += 4 + attributeLength + (4 - attributeLength % 4) % 4
        }
    }

    /// The length of the message starting `header` (20 bytes), for stream framing.
    static func totalLength(header: [UInt8]) -> Int { 20 + (Int(header[2]) << 8 | Int(header[3])) }

    private static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
}
