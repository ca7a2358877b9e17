import Foundation
import MainLoop
import WCSSession
#if canImport(Glibc)
import Glibc
#endif

/// The optional push webhook (`[push] listen`): a tiny HTTP/1.1 server that takes
/// `POST /push` with the raw push JSON and the shared secret in `X-WCS-Push-Secret`, and feeds the
/// same intake as `wcs-agent reconnect --payload`.
///
/// It runs on its own threads (one accept thread, one short-lived thread per connection, at most
/// `maximumConnections` at once), never on the Swift cooperative pool.
public final class PushWebhookServer: @unchecked Sendable {
    /// The header carrying the shared secret.
    public static let secretHeader = "X-WCS-Push-Secret"
    /// The only path served.
    public static let path = "/push"
    /// Connections handled at once; more get 503.
    public static let maximumConnections = 16

    /// What the server does with an accepted push; returns the JSON answer body.
    public typealias Intake = @Sendable (PushPayload) async -> JSONValue

    /// The bound address (with the real port when 0 was asked for).
    public let address: PushListenAddress
    let secret: [UInt8]
    let intake: Intake
    private let fd: Int32
    private let lock = NSLock()
    private var stopped = false
    private var active = 0

    /// Binds and starts listening. Throws `SystemCallError` when the address cannot be bound.
    public init(address: PushListenAddress, secret: String, intake: @escaping Intake) throws(SystemCallError) {
        self.secret = Array(secret.utf8)
        self.intake = intake
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemCallError.current("create a socket for", path: address.description) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = PushListenAddress.socketAddress(host: address.host, port: address.port) ?? sockaddr_storage()
        let length = socklen_t(address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let error = SystemCallError.current("listen on", path: address.description)
            FileDescriptorIO.close(fd)
            throw error
        }
        FileDescriptorIO.setNonBlocking(fd)
        self.fd = fd
        self.address = PushListenAddress(host: address.host, port: Self.boundPort(fd) ?? address.port)
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "push-webhook"
        thread.start()
        Log.notice("push", "push webhook listening on http://\(self.address)\(Self.path)")
    }

    /// Stops accepting; connections in progress finish on their own.
    public func close() {
        lock.lock()
        let wasStopped = stopped
        stopped = true
        lock.unlock()
        if !wasStopped { shutdown(fd, Int32(SHUT_RDWR)) }
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

    private var isStopped: Bool {
        lock.lock(); defer { lock.unlock() }
        return stopped
    }

    private func acceptLoop() {
        defer { FileDescriptorIO.close(fd) }
        while !isStopped {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, 250)
            if ready < 0 && errno != EINTR { break }
            guard ready > 0, !isStopped else { continue }
            // accept4 is not visible from Swift: set close-on-exec right after accept.
            let client = accept(fd, nil, nil)
            if client >= 0 { _ = fcntl(client, F_SETFD, FD_CLOEXEC) }
            if client < 0 {
                if errno == EINTR || errno == EAGAIN || errno == ECONNABORTED { continue }
                if isStopped { break }
                Log.warning("push", "webhook accept: \(SystemCallError.current("accept").reason)")
                usleep(100_000)
                continue
            }
            lock.lock()
            let admitted = active < Self.maximumConnections
            if admitted { active += 1 }
            lock.unlock()
            guard admitted else {
                PushWebhookConnection.reply(client, status: 503, ["error": .string("too many requests at once")])
                FileDescriptorIO.close(client)
                continue
            }
            let worker = Thread { [self] in
                PushWebhookConnection(fd: client, server: self).serve()
                FileDescriptorIO.close(client)
                lock.lock()
                active -= 1
                lock.unlock()
            }
            worker.name = "push-webhook-connection"
            worker.start()
        }
    }
}
