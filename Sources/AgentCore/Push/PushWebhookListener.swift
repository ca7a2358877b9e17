#if canImport(Glibc)
import Glibc
#endif
import MainLoop

/// The webhook's work on the main loop: accepts connections, enforces the connection cap, owns
/// the coalescer.
///
/// Runs on: the shared loop thread (`@MainLoopActor`), driven by GLib sources; no threads.
/// Cap: when `PushWebhookServer.maximumUnauthenticated` connections have not shown the secret yet,
/// or `PushWebhookServer.maximumConnections` are open in all, a new connection evicts the slowest
/// unauthenticated one (fewest bytes per second since accept, among those open for at least
/// `evictionGrace`) with 503. Only when the total cap is reached and no connection can be evicted
/// is the newcomer itself refused with 503. Both caps shrink to the descriptor budget
/// (`DescriptorBudget.webhookConnections`, half of it unauthenticated) when the limit is low.
@MainLoopActor
final class PushWebhookListener {
    let secret: [UInt8]
    let coalescer: PushCoalescer
    private let listenFD: Int32
    private let label: String
    private var acceptor: LoopAcceptor?
    private var connections: [Int: PushWebhookConnection] = [:]
    private var nextID = 1
    private var stopped = false

    nonisolated init(listenFD: Int32, label: String, secret: [UInt8], intake: @escaping PushWebhookServer.Intake) {
        self.listenFD = listenFD
        self.label = label
        self.secret = secret
        self.coalescer = PushCoalescer(intake: intake)
    }

    /// Starts accepting.
    func start() {
        guard !stopped else { return }
        let acceptor = LoopAcceptor(fd: listenFD, subsystem: "push", label: "webhook connections on \(label)") { [weak self] fd in
            self?.admit(fd)
        }
        self.acceptor = acceptor
        acceptor.start()
    }

    /// Stops accepting and closes the listener; requests in progress finish on their own.
    func stop() {
        guard !stopped else { return }
        stopped = true
        acceptor?.stop()
        acceptor = nil
        FileDescriptorIO.close(listenFD)
    }

    /// Connections open now.
    var connectionCount: Int { connections.count }

    private func admit(_ fd: Int32) {
        let unauthenticated = connections.values.filter { $0.phase == .reading && !$0.isAuthenticated }
        let budget = DescriptorBudget.webhookConnections()
        let maximum = min(PushWebhookServer.maximumConnections, budget)
        if connections.count >= maximum
            || unauthenticated.count >= min(PushWebhookServer.maximumUnauthenticated, max(4, budget / 2)) {
            // Only clients that had `evictionGrace` to show the secret are candidates: a genuine
            // client just accepted has not been read yet and must not look slow.
            let now = MonotonicTime.now()
            // Read what each candidate has sent meanwhile (the loop may not have got to it yet),
            // so a client whose secret already waits in its socket is never taken for slow.
            let candidates = unauthenticated.filter { now - $0.acceptedAt >= PushWebhookServer.evictionGrace }
                .filter { $0.catchUp() }
            if let slowest = candidates.min(by: { $0.receiveRate < $1.receiveRate }) {
                Log.debug("push", "webhook: evicting slow unauthenticated connection \(slowest.id)")
                slowest.evict(503, "too many connections; this one was too slow")
            } else if connections.count >= maximum {
                let refusal = PushWebhookReply.error(status: 503, "too many requests at once; retry")
                _ = refusal.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
                FileDescriptorIO.close(fd)
                acceptor?.descriptorFreed()
                return
            }
        }
        let connection = PushWebhookConnection(id: nextID, fd: fd, server: self)
        nextID += 1
        connections[connection.id] = connection
        connection.start()
    }

    /// A connection closed its socket.
    func closed(_ connection: PushWebhookConnection) {
        connections[connection.id] = nil
        acceptor?.descriptorFreed()
    }
}
