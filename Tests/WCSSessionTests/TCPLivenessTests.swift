import Foundation
import MainLoop
import Testing
@testable import WCSSession

/// The socket side of dead-path detection: `TCPLiveness` really sets the kernel options on a
/// connected TCP socket, and an open WebSocket reports its two ends (`SocketPath`) with a path that is
/// still routed. The dead-path behaviour itself is tested in a network namespace
/// (AgentCoreTests/NetworkChangeTests).
@Suite struct TCPLivenessTests {
    @Test func withinSecondsSpreadsTheWindow() {
        #expect(TCPLiveness.within(seconds: 0) == nil)
        let fifteen = TCPLiveness.within(seconds: 15)
        #expect(fifteen == TCPLiveness(userTimeout: 15, keepaliveIdle: 5, keepaliveInterval: 5, keepaliveCount: 3))
        #expect(TCPLiveness.within(seconds: 2)?.keepaliveIdle == 1, "at least one second")
    }

    @Test func optionsAreSetOnAConnectedSocket() throws {
        let (client, server, listener) = try Self.connectedPair()
        defer { [client, server, listener].forEach { close($0) } }
        let refused = TCPLiveness(userTimeout: 7.5, keepaliveIdle: 2, keepaliveInterval: 3, keepaliveCount: 4).apply(toSocket: client)
        #expect(refused.isEmpty, "\(refused)")
        let tcp = Int32(IPPROTO_TCP)
        #expect(Self.option(client, SOL_SOCKET, SO_KEEPALIVE) == 1)
        #expect(Self.option(client, tcp, TCP_KEEPIDLE) == 2)
        #expect(Self.option(client, tcp, TCP_KEEPINTVL) == 3)
        #expect(Self.option(client, tcp, TCP_KEEPCNT) == 4)
        #expect(Self.option(client, tcp, Int32(TCP_USER_TIMEOUT)) == 7500)
        let path = try #require(SocketPath.of(socket: client))
        #expect(path.localAddress == "127.0.0.1" && path.peerAddress == "127.0.0.1" && path.isStillRouted)
    }

    @Test func anOpenWebSocketReportsItsPath() async throws {
        let server = try await TransportTestServer.start(.echo)
        let connection = WebSocketConnection(options: WebSocketOptions(url: server.url(), tcpLiveness: .within(seconds: 15)))
        #expect(connection.path == nil)
        connection.connect()
        for await event in connection.events {
            if case .opened = event { break }
        }
        let path = try #require(connection.path)
        #expect(path.peerAddress == "127.0.0.1" && Int(path.peerPort) == server.port)
        #expect(path.currentSourceAddress() == "127.0.0.1" && path.isStillRouted)
        connection.close()
    }

    private static func option(_ fd: Int32, _ level: Int32, _ name: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, level, name, &value, &length) == 0 ? value : nil
    }

    /// A loopback TCP connection: client end, accepted end, listener.
    private static func connectedPair() throws -> (Int32, Int32, Int32) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard listening else { throw POSIXError(.EADDRNOTAVAIL) }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) == 0 }
        }
        guard connected else { throw POSIXError(.ECONNREFUSED) }
        return (client, accept(listener, nil, nil), listener)
    }
}
