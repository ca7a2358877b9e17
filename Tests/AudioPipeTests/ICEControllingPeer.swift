import AudioSDP
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A controlling ICE peer on 127.0.0.1 with two UDP sockets ("legs"), enough of RFC 8445 to make
/// a libnice agent (controlled) select a pair and later switch to another: each leg answers the
/// agent's checks only once it is `answering`, and `nominate` sends a check with USE-CANDIDATE
/// from a leg. Every datagram a leg receives that is not STUN is counted (the agent's media).
///
/// Runs on: its own thread, which polls both sockets; the test thread flips the switches and reads
/// the counters under a lock.
final class ICEControllingPeer: Sendable {
    let ufrag = "peerufrag"
    let password = "peer-password-0123456789"
    let legs: [Int32]
    let ports: [Int]
    private struct Shared {
        var answering: [Bool]
        var media: [Int]
        var stopped = false
    }

    private let shared: Mutex<Shared>
    private let finished = Mutex(false)

    /// Two bound sockets, neither answering yet; the thread starts at once.
    init() {
        var legs: [Int32] = []
        var ports: [Int] = []
        for _ in 0..<2 {
            let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            var address = ICEStunProbe.loopback(port: 0)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    _ = bind(descriptor, $0, length)
                    _ = getsockname(descriptor, $0, &length)
                }
            }
            legs.append(descriptor)
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        self.legs = legs
        self.ports = ports
        shared = Mutex(Shared(answering: [false, false], media: [0, 0]))
        let thread = Thread { [self] in run() }
        thread.start()
    }

    /// The legs as remote candidates: leg 0 with a low priority, leg 1 with a high one, so a pair
    /// on leg 1 nominated later replaces a selected pair on leg 0 (RFC 8445 section 8.1.1).
    var candidates: [ICECandidateLine] {
        [ICECandidateLine(foundation: "1", component: 1, transport: "udp", priority: 1_000, address: "127.0.0.1",
                          port: ports[0], type: .host),
         ICECandidateLine(foundation: "2", component: 1, transport: "udp", priority: 2_000_000_000, address: "127.0.0.1",
                          port: ports[1], type: .host)]
    }

    func answer(on leg: Int) { shared.withLock { $0.answering[leg] = true } }

    /// Media (non-STUN) datagrams leg `leg` received so far.
    func media(on leg: Int) -> Int { shared.withLock { $0.media[leg] } }

    /// Sends a nominating check (USE-CANDIDATE, ICE-CONTROLLING) from `leg` to the agent's port.
    func nominate(from leg: Int, toPort port: Int, agentUfrag: String, agentPassword: String) {
        let transaction = (0..<12).map { _ in UInt8.random(in: 0...255) }
        var message: [UInt8] = [0x00, 0x01, 0, 0, 0x21, 0x12, 0xA4, 0x42] + transaction
        ICEStunProbe.append(&message, type: 0x0006, value: Array("\(agentUfrag):\(ufrag)".utf8))  // USERNAME
        ICEStunProbe.append(&message, type: 0x0024, value: [0x6E, 0x00, 0x00, 0xFF])  // PRIORITY
        ICEStunProbe.append(&message, type: 0x0025, value: [])  // USE-CANDIDATE
        ICEStunProbe.append(&message, type: 0x802A, value: (0..<8).map { _ in UInt8.random(in: 0...255) })  // ICE-CONTROLLING
        Self.sign(&message, password: agentPassword)
        send(message, from: leg, to: ICEStunProbe.loopback(port: port))
    }

    func stop() {
        shared.withLock { $0.stopped = true }
        while !finished.withLock({ $0 }) { usleep(1_000) }
        for leg in legs { _ = close(leg) }
    }

    // MARK: - Peer thread

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 1_500)
        while !shared.withLock({ $0.stopped }) {
            var entries = legs.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&entries, nfds_t(entries.count), 20) > 0 else { continue }
            for (leg, entry) in entries.enumerated() where entry.revents & Int16(POLLIN) != 0 {
                var from = sockaddr_in()
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let count = buffer.withUnsafeMutableBytes { bytes in
                    withUnsafeMutablePointer(to: &from) { pointer in
                        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(legs[leg], bytes.baseAddress, bytes.count, 0, $0, &length)
                        }
                    }
                }
                guard count > 0 else { continue }
                handle(Array(buffer[0..<count]), on: leg, from: from)
            }
        }
        finished.withLock { $0 = true }
    }

    private func handle(_ datagram: [UInt8], on leg: Int, from: sockaddr_in) {
        let isSTUN = datagram.count >= 20 && datagram[0] < 4 && datagram[4...7] == [0x21, 0x12, 0xA4, 0x42]
        guard isSTUN else {
            shared.withLock { $0.media[leg] += 1 }
            return
        }
        // A Binding request (the agent's check or consent): answer with XOR-MAPPED-ADDRESS.
        guard datagram[0] == 0x00, datagram[1] == 0x01, shared.withLock({ $0.answering[leg] }) else { return }
        var response: [UInt8] = [0x01, 0x01, 0, 0, 0x21, 0x12, 0xA4, 0x42] + datagram[8..<20]
        let port = UInt16(bigEndian: from.sin_port) ^ 0x2112
        let address = UInt32(bigEndian: from.sin_addr.s_addr) ^ 0x2112_A442
        ICEStunProbe.append(&response, type: 0x0020, value: [0, 1, UInt8(port >> 8), UInt8(port & 0xFF),
                                                            UInt8(address >> 24), UInt8(address >> 16 & 0xFF),
                                                            UInt8(address >> 8 & 0xFF), UInt8(address & 0xFF)])
        Self.sign(&response, password: password)
        send(response, from: leg, to: from)
    }

    /// Appends MESSAGE-INTEGRITY (keyed with `password`) and FINGERPRINT.
    private static func sign(_ message: inout [UInt8], password: String) {
        ICEStunProbe.setLength(&message, adding: 24)
        ICEStunProbe.append(&message, type: 0x0008, value: SRTPReference.hmacSHA1(key: Array(password.utf8), message))
        ICEStunProbe.setLength(&message, adding: 8)
        let crc = ICEStunProbe.crc32(message) ^ 0x5354_554E
        ICEStunProbe.append(&message, type: 0x8028, value: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF),
                                                          UInt8(crc & 0xFF)])
    }

    private func send(_ message: [UInt8], from leg: Int, to destination: sockaddr_in) {
        var address = destination
        _ = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(legs[leg], bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }
}
