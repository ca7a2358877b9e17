import MediaTestSupport
@testable import AudioPipe
import Foundation
import Testing

/// A DTLS-SRTP handshake over two real UDP sockets on 127.0.0.1, driven by poll(2) on one thread,
/// then SRTP packets across the same sockets.
@Suite struct DTLSOverUDPTests {
    /// A UDP socket bound to 127.0.0.1 on an ephemeral port.
    final class LoopbackSocket {
        let descriptor: Int32
        let port: UInt16

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard descriptor >= 0 else { throw POSIXError(.EBADF) }
            var address = Self.loopback(port: 0)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
                }
            }
            guard bound else { close(descriptor); throw POSIXError(.EADDRNOTAVAIL) }
            self.descriptor = descriptor
            port = UInt16(bigEndian: address.sin_port)
        }

        deinit { close(descriptor) }

        static func loopback(port: UInt16) -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            return address
        }

        func connect(to port: UInt16) -> Bool {
            var address = Self.loopback(port: port)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Foundation.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
        }

        func send(_ datagram: [UInt8]) {
            _ = datagram.withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, $0.count, 0) }
        }

        func receive() -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: 2048)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            return count >= 0 ? Array(buffer.prefix(count)) : nil
        }
    }

    /// Polls both sockets, feeding each transport what its socket receives, until `done` holds.
    static func drive(_ pairs: [(LoopbackSocket, DTLSTransport)], until done: () -> Bool) {
        for _ in 0..<200 where !done() {
            let wait = pairs.compactMap { $0.1.nextTimeout }.min() ?? 0.05
            var descriptors = pairs.map { pollfd(fd: $0.0.descriptor, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(min(wait, 0.5) * 1000) + 1)
            if ready == 0 { pairs.forEach { $0.1.handleTimeout() } }
            for (index, pair) in pairs.enumerated() where descriptors[index].revents & Int16(POLLIN) != 0 {
                while let datagram = pair.0.receive() { pair.1.receive(datagram) }
            }
        }
    }

    @Test func handshakeAndSRTPOverLoopbackUDP() throws {
        let clientSocket = try LoopbackSocket()
        let serverSocket = try LoopbackSocket()
        #expect(clientSocket.connect(to: serverSocket.port) && serverSocket.connect(to: clientSocket.port))
        let clientCertificate = DTLSLoopbackHarness.clientCertificate
        let serverCertificate = DTLSLoopbackHarness.serverCertificate
        let client = try DTLSTransport(
            role: .client, certificate: clientCertificate,
            remoteFingerprint: DTLSFingerprint(sdpValue: serverCertificate.fingerprint),
            retransmission: DTLSLoopbackHarness.fastTimers, send: clientSocket.send)
        let server = try DTLSTransport(
            role: .server, certificate: serverCertificate,
            remoteFingerprint: DTLSFingerprint(sdpValue: clientCertificate.fingerprint),
            retransmission: DTLSLoopbackHarness.fastTimers, send: serverSocket.send)
        var clientKeys: SRTPKeyMaterial?
        var serverKeys: SRTPKeyMaterial?
        client.onEvent = { if case let .connected(keys) = $0 { clientKeys = keys } }
        server.onEvent = { if case let .connected(keys) = $0 { serverKeys = keys } }
        server.start()
        client.start()
        Self.drive([(clientSocket, client), (serverSocket, server)]) { clientKeys != nil && serverKeys != nil }
        let sender = try SRTPSession(keyMaterial: try #require(clientKeys))
        let receiver = try SRTPSession(keyMaterial: try #require(serverKeys))

        let packets = (0..<20).map { SRTPSessionTests.rtp(sequence: UInt16($0)) }
        for packet in packets { clientSocket.send(try sender.protectRTP(packet)) }
        var received: [[UInt8]] = []
        for _ in 0..<100 where received.count < packets.count {
            var descriptor = pollfd(fd: serverSocket.descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 100)
            while let datagram = serverSocket.receive() { received.append(try receiver.unprotectRTP(datagram)) }
        }
        #expect(received == packets)
    }
}
