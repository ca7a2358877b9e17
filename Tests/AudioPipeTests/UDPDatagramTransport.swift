@testable import AudioPipe
import Foundation
import MainLoop
import Synchronization

/// A `DatagramTransport` over one real UDP socket on 127.0.0.1, connected to a peer port: the
/// path the DTLS-SRTP stack runs over in tests without libnice. A reader thread (test code
/// only) polls the socket and delivers each datagram on the loop, as libnice does; `send`
/// writes straight to the socket from any thread. `start()` reports `.connected` (a plain
/// socket has no checks to run).
///
/// Runs on: the loop (`@MainLoopActor`) like `ICEAgent`; `send`/`selectedPair` from anywhere.
@MainLoopActor
final class UDPDatagramTransport: DatagramTransport {
    nonisolated let port: UInt16
    private nonisolated let descriptor: Int32
    /// Set by `close()`; read by `send` and the reader thread.
    private nonisolated let closed = Atomic<Bool>(false)
    private nonisolated let sent = Atomic<Int>(0)
    private var stateHandler: (@MainLoopActor (ICEState) -> Void)?
    private var receiveHandler: (@MainLoopActor ([UInt8]) -> Void)?

    nonisolated init() throws {
        let socket = DTLSOverUDPTests.LoopbackSocket.self
        let bound = try socket.init()
        // Keep the descriptor: the LoopbackSocket's deinit would close it, so duplicate it.
        descriptor = dup(bound.descriptor)
        port = bound.port
    }

    deinit { Foundation.close(descriptor) }

    /// Datagrams `send` was asked to write (for the tests' own checks).
    nonisolated var sentCount: Int { sent.load(ordering: .relaxed) }

    /// Connects to the peer's port and starts the reader thread; reports `.connected` on the loop.
    func start(peer: UInt16) {
        var address = DTLSOverUDPTests.LoopbackSocket.loopback(port: peer)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let thread = Thread { [self] in readLoop() }
        thread.name = "test-udp-path"
        thread.start()
        MainLoopActor.post { [self] in stateHandler?(.connected) }
    }

    var onStateChange: (@MainLoopActor (ICEState) -> Void)? {
        get { stateHandler }
        set { stateHandler = newValue }
    }

    var onReceive: (@MainLoopActor ([UInt8]) -> Void)? {
        get { receiveHandler }
        set { receiveHandler = newValue }
    }

    nonisolated func send(_ datagram: [UInt8]) {
        guard !closed.load(ordering: .acquiring) else { return }
        sent.add(1, ordering: .relaxed)
        _ = datagram.withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, $0.count, 0) }
    }

    nonisolated var selectedPair: ICESelectedPair? { nil }

    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let handler = stateHandler
        stateHandler = nil
        receiveHandler = nil
        handler?(.closed)
    }

    private nonisolated func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 2048)
        while !closed.load(ordering: .acquiring) {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 20) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { continue }
            let datagram = Array(buffer.prefix(count))
            MainLoopActor.post { [self] in receiveHandler?(datagram) }
        }
    }
}
