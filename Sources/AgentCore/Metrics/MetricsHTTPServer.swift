import MainLoop
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The optional metrics endpoint (`[metrics] listen`, loopback by default): a tiny HTTP/1.1
/// server answering `GET /metrics` (and `GET /`) with the Prometheus text exposition, for a
/// Prometheus server or anything else that scrapes.
///
/// Runs on: this facade is called from any thread; accepting and the connections run on the
/// shared main loop (`MetricsHTTPListener`, `MetricsHTTPConnection`: GLib fd sources, no thread of
/// their own). Rendering a scrape asks the agent actor, on a task, and the answer goes back to the
/// loop. One request per connection (`Connection: close`).
final class MetricsHTTPServer: Sendable {
    /// The path served (`/` answers the same).
    static let path = "/metrics"
    /// Connections open at once; more are refused with 503.
    static let maximumConnections = 32
    /// Seconds from accept within which the request head must arrive (else 408).
    static let requestDeadline = 5.0
    /// The largest request head read, in bytes (else 431).
    static let maximumHead = 8192

    /// Renders one scrape (the exposition text).
    typealias Render = @Sendable () async -> String

    /// The bound address (with the real port when 0 was asked for).
    let address: PushListenAddress
    private let listener: MetricsHTTPListener
    private let closed = Mutex(false)

    /// Binds and starts listening. Throws `SystemCallError` when the address cannot be bound.
    init(address: PushListenAddress, render: @escaping Render) throws(SystemCallError) {
        let (fd, port) = try TCPListeningSocket.open(address, backlog: 64)
        self.address = PushListenAddress(host: address.host, port: port)
        let listener = MetricsHTTPListener(listenFD: fd, label: self.address.description, render: render)
        self.listener = listener
        MainLoop.shared.post { MainLoopActor.assumeIsolated { listener.start() } }
        Log.notice("metrics", "metrics served on http://\(self.address)\(Self.path)")
    }

    /// Stops accepting; scrapes in progress finish on their own. Idempotent, never blocks.
    func close() {
        let first = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        let listener = self.listener
        MainLoop.shared.post { MainLoopActor.assumeIsolated { listener.stop() } }
    }

    deinit {
        close()
    }
}

/// Accepts metrics connections on the loop and keeps them until they close.
///
/// Runs on: the shared loop thread (`@MainLoopActor`); no locks, no threads.
@MainLoopActor
final class MetricsHTTPListener {
    let render: MetricsHTTPServer.Render
    private let listenFD: Int32
    private let label: String
    private var acceptor: LoopAcceptor?
    private var connections: [Int: MetricsHTTPConnection] = [:]
    private var nextID = 1
    private var stopped = false

    nonisolated init(listenFD: Int32, label: String, render: @escaping MetricsHTTPServer.Render) {
        self.listenFD = listenFD
        self.label = label
        self.render = render
    }

    func start() {
        guard !stopped else { return }
        let acceptor = LoopAcceptor(fd: listenFD, subsystem: "metrics", label: "metrics connections on \(label)") { [weak self] fd in
            self?.admit(fd)
        }
        self.acceptor = acceptor
        acceptor.start()
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        acceptor?.stop()
        acceptor = nil
        FileDescriptorIO.close(listenFD)
    }

    private func admit(_ fd: Int32) {
        let connection = MetricsHTTPConnection(id: nextID, fd: fd, listener: self)
        nextID += 1
        connections[connection.id] = connection
        if connections.count > MetricsHTTPServer.maximumConnections {
            connection.reply(.serviceUnavailable)
        } else {
            connection.start()
        }
    }

    /// A connection closed its socket.
    func closed(_ connection: MetricsHTTPConnection) {
        connections[connection.id] = nil
        acceptor?.descriptorFreed()
    }
}
