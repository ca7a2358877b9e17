/// The server-side state of one control client. Only touched while holding the server's lock.
final class ControlConnection {
    let id: Int
    let fd: Int32
    let peer: PeerCredentials
    /// Bytes received but not yet split into lines.
    var input: [UInt8] = []
    /// Bytes waiting to be sent, from `outputOffset` on.
    var output: [UInt8] = []
    var outputOffset = 0
    /// Receives broadcast events.
    var subscribed = false
    /// Requests whose handler has not answered yet.
    var inFlight = 0
    /// The client shut down its sending side; answer pending requests, then close.
    var readClosed = false
    /// Close once `output` is flushed (after a fatal protocol error).
    var closeAfterFlush = false
    /// Close now (overflowed queue, I/O error, peer gone).
    var dropped = false

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

    /// Marks `count` bytes as sent and compacts the buffer now and then.
    func consumeOutput(_ count: Int) {
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
