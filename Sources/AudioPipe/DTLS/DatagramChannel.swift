/// The datagram queues between OpenSSL and a `DTLSTransport`, behind the custom BIO.
///
/// Outgoing DTLS records are packed into datagrams of at most `mtu` bytes; a BIO flush (OpenSSL
/// flushes at the end of every flight) or `takeOutgoing()` closes the datagram being built.
/// Incoming datagrams are handed to OpenSSL one per BIO read, so record boundaries are kept.
/// Confined to the transport's thread, like the transport.
final class DatagramChannel {
    /// Largest datagram written (the DTLS link MTU).
    let mtu: Int
    /// At most this many received datagrams wait for OpenSSL; more are dropped.
    static let inboundLimit = 64

    private var inbound: [[UInt8]] = []
    private var inboundHead = 0
    private var building: [UInt8] = []
    private var finished: [[UInt8]] = []

    init(mtu: Int) {
        self.mtu = mtu
    }

    /// Queues a received datagram for OpenSSL; false when the queue is full (the datagram is dropped).
    func enqueueIncoming(_ datagram: [UInt8]) -> Bool {
        guard inbound.count - inboundHead < Self.inboundLimit else { return false }
        inbound.append(datagram)
        return true
    }

    /// Drops every queued incoming datagram.
    func discardIncoming() {
        inbound.removeAll(keepingCapacity: true)
        inboundHead = 0
    }

    /// Size of the next incoming datagram (0 when none is queued).
    var nextIncomingSize: Int {
        inboundHead < inbound.count ? inbound[inboundHead].count : 0
    }

    /// Copies the next incoming datagram into `buffer` (truncating it to the buffer, as a UDP socket
    /// would) and returns the bytes copied, or nil when nothing is queued.
    func readIncoming(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard inboundHead < inbound.count else { return nil }
        let datagram = inbound[inboundHead]
        inboundHead += 1
        if inboundHead == inbound.count { discardIncoming() }
        let count = min(datagram.count, buffer.count)
        buffer.copyBytes(from: datagram.prefix(count))
        return count
    }

    /// Appends one DTLS record written by OpenSSL, starting a new datagram if it would overflow the MTU.
    func write(_ record: UnsafeRawBufferPointer) {
        if !building.isEmpty && building.count + record.count > mtu { flush() }
        building.append(contentsOf: record)
    }

    /// Bytes in the datagram being built (what OpenSSL asks for as `BIO_wpending`).
    var pendingOutgoing: Int { building.count }

    /// Closes the datagram being built.
    func flush() {
        guard !building.isEmpty else { return }
        finished.append(building)
        building.removeAll(keepingCapacity: true)
    }

    /// Closes the datagram being built and returns every finished datagram, oldest first.
    func takeOutgoing() -> [[UInt8]] {
        flush()
        defer { finished.removeAll(keepingCapacity: true) }
        return finished
    }
}
