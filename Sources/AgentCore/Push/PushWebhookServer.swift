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
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemCallError.current("create a socket for", path: address.description) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = PushListenAddress.socketAddress(host: address.host, port: address.port) ?? sockaddr_storage()
        let length = socklen_t(address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 1024) == 0 else {
            let error = SystemCallError.current("listen on", path: address.description)
            FileDescriptorIO.close(fd)
            throw error
        }
        self.address = PushListenAddress(host: address.host, port: Self.boundPort(fd) ?? address.port)
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

    private static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard ok == 0 else { return nil }
        return withUnsafeBytes(of: storage) { raw in
            // sin_port and sin6_port sit at the same offset, right after the family.
            Int(UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self)))
        }
    }
}
