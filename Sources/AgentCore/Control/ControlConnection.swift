import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop

/// The server-side state of one control client: its socket, buffers and GLib watches.
///
/// Runs on: the loop thread (`@MainLoopActor`), like the rest of the control server, so it needs
/// no lock. The read watch lives while the client may still send; the write watch only while
/// output waits for room in the socket.
@MainLoopActor
final class ControlConnection {
    let id: Int
    let fd: Int32
    let peer: PeerCredentials
    /// Bytes received but not yet split into lines.
    var input: [UInt8] = []
    /// Bytes waiting to be sent, from `outputOffset` on.
    private(set) var output: [UInt8] = []
    private(set) var outputOffset = 0
    /// Receives broadcast events.
    var subscribed = false
    /// The last `hello` was refused: later requests are answered `protocol_mismatch` and not run.
    var helloRefused = false
    /// Requests whose handler has not answered yet.
    var inFlight = 0
    /// The client shut down its sending side; answer pending requests, then close.
    var readClosed = false
    /// Close once `output` is flushed (after a fatal protocol error).
    var closeAfterFlush = false
    /// Close now (overflowed queue, I/O error, peer gone).
    var dropped = false
    var readWatch: LoopFDWatch?
    var writeWatch: LoopFDWatch?
    /// `CLOCK_MONOTONIC` seconds of the last request line or answer (the oldest idle client is evicted first).
    var lastActivity = MonotonicTime.now()

    /// Nothing in flight and nothing to send: it may be evicted for a newcomer.
    var isIdle: Bool { inFlight == 0 && pendingOutput == 0 && !dropped }

    init(id: Int, fd: Int32, peer: PeerCredentials) {
        self.id = id
        self.fd = fd
        self.peer = peer
    }

    /// Bytes still queued for the client.
    var pendingOutput: Int { output.count - outputOffset }

    /// Whether the connection has nothing left to do.
    var isFinished: Bool {
        dropped || (pendingOutput == 0 && (closeAfterFlush || (readClosed && inFlight == 0)))
    }

    /// Whether the client should still be read from.
    var wantsInput: Bool { !readClosed && !closeAfterFlush && !dropped }

    /// Queues `line`; returns false (and marks the connection dropped) when the queue would
    /// exceed `limit` bytes.
    func enqueue(_ line: Data, limit: Int) -> Bool {
        guard !dropped else { return false }
        guard pendingOutput + line.count <= limit else {
            dropped = true
            return false
        }
        output.append(contentsOf: line)
        return true
    }

    /// Reads what is available into `input`, using `buffer` as scratch space.
    func receive(into buffer: inout [UInt8]) {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count == 0 {
            readClosed = true
        } else if count < 0 {
            if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { dropped = true }
        } else {
            input.append(contentsOf: buffer[0..<count])
        }
    }

    /// Writes as much queued output as the socket takes.
    func flush() {
        while pendingOutput > 0 {
            let sent = output.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + outputOffset, pendingOutput, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if sent > 0 {
                consumeOutput(sent)
                continue
            }
            if sent < 0 && errno == EINTR { continue }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            dropped = true
            return
        }
    }

    /// Removes both watches and closes the socket.
    func close() {
        readWatch?.cancel()
        readWatch = nil
        writeWatch?.cancel()
        writeWatch = nil
        FileDescriptorIO.close(fd)
    }

    /// Marks `count` bytes as sent and compacts the buffer now and then.
    private func consumeOutput(_ count: Int) {
        outputOffset += count
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
        } else if outputOffset > 64 * 1024 && outputOffset * 2 > output.count {
            output.removeFirst(outputOffset)
            outputOffset = 0
        }
    }
}
