@testable import AudioPipe
import Foundation
import MainLoop

/// A `DatagramTransport` over one real UDP socket on 127.0.0.1, connected to a peer port: the
/// path the DTLS-SRTP stack runs over in tests without libnice. A reader thread polls the socket
/// and delivers each datagram on the loop thread, as libnice does; `send` writes straight to the
/// socket from any thread. `start()` reports `.connected` (a plain socket has no checks to run).
final class UDPDatagramTransport: DatagramTransport, @unchecked Sendable {
    let port: UInt16
    private let descriptor: Int32
    private let loop: MainLoop
    private let lock = NSLock()
    private var stateHandler: (@Sendable (ICEState) -> Void)?
    private var receiveHandler: (@Sendable ([UInt8]) -> Void)?
    private var closed = false
    private var reader: Thread?
    /// Datagrams `send` was asked to write (for the tests' own checks).
    private(set) var sentCount = 0

    init(loop: MainLoop) throws {
        let socket = DTLSOverUDPTests.LoopbackSocket.self
        let bound = try socket.init()
        // Keep the descriptor: the LoopbackSocket's deinit would close it, so duplicate it.
        descriptor = dup(bound.descriptor)
        port = bound.port
        self.loop = loop
    }

    deinit { Foundation.close(descriptor) }

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
        lock.withLock { reader = thread }
        thread.start()
        loop.post { [self] in lock.withLock { stateHandler }?(.connected) }
    }

    var onStateChange: (@Sendable (ICEState) -> Void)? {
        get { lock.withLock { stateHandler } }
        set { lock.withLock { stateHandler = newValue } }
    }

    var onReceive: (@Sendable ([UInt8]) -> Void)? {
        get { lock.withLock { receiveHandler } }
        set { lock.withLock { receiveHandler = newValue } }
    }

    func send(_ datagram: [UInt8]) {
        guard !lock.withLock({ closed }) else { return }
        lock.withLock { sentCount += 1 }
        _ = datagram.withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, $0.count, 0) }
    }

    var selectedPair: ICESelectedPair? { nil }

    func close() {
        let handler: (@Sendable (ICEState) -> Void)? = lock.withLock {
            guard !closed else { return nil }
            closed = true
            defer { stateHandler = nil; receiveHandler = nil }
            return stateHandler
        }
        handler?(.closed)
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 2048)
        while !lock.withLock({ closed }) {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 20) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { continue }
            let datagram = Array(buffer.prefix(count))
            loop.post { [self] in lock.withLock { receiveHandler }?(datagram) }
        }
    }
}
