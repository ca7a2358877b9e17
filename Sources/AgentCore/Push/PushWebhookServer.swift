import MainLoop
import Synchronization
import WCSSession
#if canImport(Glibc)
import Glibc
#endif

/// The optional push webhook (`[push] listen`): a tiny HTTP/1.1 server that takes
/// `POST /push` with the raw push JSON and the shared secret in `X-WCS-Push-Secret`, and feeds the
/// same intake as `wcs-agent reconnect --payload`.
///
/// Runs on: this facade is called from any thread; the server itself is `PushWebhookListener` and
/// `PushWebhookConnection` on the shared main loop (GLib sources: no thread per request, no
/// blocking). Each request must arrive whole within `requestDeadline` seconds of accept; the secret
/// is checked as soon as its header arrives; slow unauthenticated clients are evicted first when
/// the connection cap is reached; concurrent pushes for one call share one wake.
public final class PushWebhookServer: Sendable {
    /// The header carrying the shared secret.
    public static let secretHeader = "X-WCS-Push-Secret"
    /// The only path served.
    public static let path = "/push"
    /// Connections open at once (any state).
    public static let maximumConnections = 512
    /// Connections open at once that have not shown the secret yet.
    public static let maximumUnauthenticated = 64
    /// Seconds a new connection has before it can be evicted as slow.
    public static let evictionGrace = 0.2
    /// Seconds from accept within which the whole request must arrive (else 408).
    public static let requestDeadline = 2.0
    /// Seconds an answer may wait for the wake (else 504).
    static let intakeTimeout = 120.0
    /// Seconds a closing connection reads what the client still sends, so it sees the answer.
    static let lingerTime = 1.0

    /// What the server does with an accepted push; returns the JSON answer body.
    public typealias Intake = @Sendable (PushPayload) async -> JSONValue

    /// The bound address (with the real port when 0 was asked for).
    public let address: PushListenAddress
    private let listener: PushWebhookListener
    private let closed = Mutex(false)

    /// Binds and starts listening. Throws `SystemCallError` when the address cannot be bound.
    public init(address: PushListenAddress, secret: String, intake: @escaping Intake) throws(SystemCallError) {
        let (fd, port) = try TCPListeningSocket.open(address)
        self.address = PushListenAddress(host: address.host, port: port)
        let listener = PushWebhookListener(listenFD: fd, label: self.address.description, secret: Array(secret.utf8),
                                           intake: intake)
        self.listener = listener
        MainLoop.shared.post { MainLoopActor.assumeIsolated { listener.start() } }
        Log.notice("push", "push webhook listening on http://\(self.address)\(Self.path)")
    }

    /// Stops accepting; connections in progress finish on their own. Idempotent, never blocks.
    public func close() {
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
