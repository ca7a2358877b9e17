import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A STUN client on 127.0.0.1 that sends an ICE connectivity check (RFC 8445 Binding request:
/// USERNAME, PRIORITY, ICE-CONTROLLED, MESSAGE-INTEGRITY, FINGERPRINT) to an agent's port and
/// waits for the Binding success response: whether that agent still answers STUN (consent,
/// peer checks) wherever its sockets are read.
final class ICEStunProbe {
    private let descriptor: Int32

    init() {
        descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    deinit { _ = close(descriptor) }

    /// Sends a check for `username` ("theirUfrag:ourUfrag") keyed with the agent's `password` and
    /// returns the transaction ID sent.
    func sendCheck(toPort port: Int, username: String, password: String) -> [UInt8] {
        let transaction = (0..<12).map { _ in UInt8.random(in: 0...255) }
        var message: [UInt8] = [0x00, 0x01, 0, 0, 0x21, 0x12, 0xA4, 0x42] + transaction
        Self.append(&message, type: 0x0006, value: Array(username.utf8))
        Self.append(&message, type: 0x0024, value: [0x6E, 0x7F, 0x1E, 0xFF])  // PRIORITY (peer-reflexive-like)
        Self.append(&message, type: 0x8029, value: (0..<8).map { _ in UInt8.random(in: 0...255) })  // ICE-CONTROLLED
        Self.setLength(&message, adding: 24)
        Self.append(&message, type: 0x0008, value: SRTPReference.hmacSHA1(key: Array(password.utf8), message))
        Self.setLength(&message, adding: 8)
        let crc = Self.crc32(message) ^ 0x5354_554E
        Self.append(&message, type: 0x8028, value: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        var address = Self.loopback(port: port)
        _ = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        return transaction
    }

    /// Waits up to `timeout` seconds for a Binding success response with `transaction`.
    func awaitSuccess(transaction: [UInt8], timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 1_500)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(left * 1000) + 1) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count >= 20, buffer[0] == 0x01, buffer[1] == 0x01, Array(buffer[8..<20]) == transaction { return true }
        }
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    /// Appends one attribute, padded to 4 bytes, and updates the header's length.
    static func append(_ message: inout [UInt8], type: UInt16, value: [UInt8]) {
        message += [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
        message += [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        setLength(&message, adding: 0)
    }

    /// Sets the header's length to the attributes so far plus `adding` bytes still to come.
    static func setLength(_ message: inout [UInt8], adding: Int) {
        let length = message.count - 20 + adding
        message[2] = UInt8(length >> 8)
        message[3] = UInt8(length & 0xFF)
    }

    /// CRC-32 (ISO 3309, as FINGERPRINT uses).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
