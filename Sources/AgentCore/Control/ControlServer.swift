import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop
import Synchronization
import WCSSession

/// The daemon's control socket: JSON Lines requests and events over a Unix stream socket.
///
/// Wire format (one JSON object per line):
/// - request `{"id": 1, "verb": "status", "args": {...}}` (id: number or string; args optional);
/// - response `{"id": 1, "ok": true, "result": {...}}` or
///   `{"id": 1, "ok": false, "error": "human text", "code": "machine_code"}`;
/// - `{"id": 2, "verb": "subscribe"}` is answered by the server itself with
///   `{"id": 2, "ok": true, "result": {"subscribed": true}}`, after which the connection also receives
///   `{"event": {...}}` lines from `broadcast` until it disconnects.
/// A malformed line gets an error response with `"id": null` and the connection stays open.
///
/// Access: the socket file is 0600, or 0660 owned by `group` when given; in addition every
/// connection's `SO_PEERCRED` is checked: root, the daemon's own uid and members of `group` are
/// allowed; anyone else receives one `permission_denied` line and is disconnected.
///
/// Runs on: this facade is called from any thread; all socket I/O happens in `ControlServerCore`
/// on the shared main loop (GLib unix-fd sources, no thread of its own). Each request runs the
/// handler in its own `Task`, so requests (also from one client) run concurrently and responses
/// are sent in order of completion, each carrying its id. A client that does not read is
/// disconnected once its queue exceeds `maximumQueuedBytes`, so it never blocks the others. When
/// the process runs out of descriptors the listener pauses (one log line) and existing clients
/// keep being served. Call `close()` to stop.
public final class ControlServer: Sendable {
    /// The request handler: runs concurrently, once per request.
    public typealias Handler = @Sendable (ControlRequest) async -> ControlResponse
    /// Answers `hello` at once, on the loop, as its line is read: nothing waits for a task, and
    /// the requests that follow it on the connection (a client may send them in the same write)
    /// are not started before it is answered. After a refused hello (a failure response) every
    /// later request on that connection is answered `protocol_mismatch` and not run, until a
    /// `hello` is accepted.
    public typealias HelloResponder = @Sendable (ControlRequest) -> ControlResponse

    /// The socket path.
    public let path: String
    /// Bytes that may wait for one slow client before it is disconnected.
    public let maximumQueuedBytes: Int
    /// The longest accepted request line.
    public static let maximumLineBytes = 1 << 20

    private let core: ControlServerCore
    private let counts = ControlServerCounts()
    private let boundFile: (device: UInt64, inode: UInt64)
    private let closed = Mutex(false)

    /// Binds `path` and starts serving. Throws `ControlServerError`:
    /// `.alreadyRunning` when another process answers on `path`; a stale socket file is removed.
    /// `hello`: answers that verb on the loop (without it, `hello` goes to `handler` like any verb).
    public convenience init(path: String, group: String?, hello: HelloResponder? = nil, handler: @escaping Handler) throws {
        try self.init(path: path, group: group, maximumQueuedBytes: 1 << 20, hello: hello, handler: handler)
    }

    /// As `init(path:group:hello:handler:)` with a custom per-client queue limit.
    public init(path: String, group: String?, maximumQueuedBytes: Int, hello: HelloResponder? = nil,
                handler: @escaping Handler) throws {
        var groupID: gid_t?
        if let group {
            guard let gid = PeerAuthorizer.groupID(named: group) else { throw ControlServerError.unknownGroup(group) }
            groupID = gid
        }
        self.path = path
        self.maximumQueuedBytes = maximumQueuedBytes

        try UnixStreamSocket.removeStaleSocket(at: path)
        do {
            try AtomicFile.ensureDirectory(AtomicFile.directory(of: path), mode: 0o755)
        } catch let error as SystemCallError {
            throw ControlServerError.system(error)
        }
        let fd = try UnixStreamSocket.listen(at: path, mode: groupID == nil ? 0o600 : 0o660, group: groupID)
        var info = stat()
        if stat(path, &info) != 0 {
            let error = SystemCallError.current("inspect", path: path)
            FileDescriptorIO.close(fd)
            throw ControlServerError.system(error)
        }
        boundFile = (UInt64(info.st_dev), UInt64(info.st_ino))
        let core = ControlServerCore(listenFD: fd, path: path, maximumQueuedBytes: maximumQueuedBytes, hello: hello, handler: handler,
                                     authorizer: PeerAuthorizer(ownUID: geteuid(), groupID: groupID), counts: counts)
        self.core = core
        MainLoop.shared.post { MainLoopActor.assumeIsolated { core.start() } }
        Log.info("control", "listening on \(path)" + (group.map { " (group \($0))" } ?? ""))
    }

    /// Sends `event` as `{"event": ...}` to every subscribed client. Returns how many subscribers
    /// it is queued for. Never blocks: the line is handed to the main loop.
    @discardableResult
    public func broadcast(_ event: JSONValue) -> Int {
        let line = ControlWire.encodeEvent(event)
        let core = self.core
        MainLoop.shared.post { MainLoopActor.assumeIsolated { core.broadcast(line) } }
        return counts.subscribers
    }

    /// Connected clients (authorized ones only).
    public var clientCount: Int { counts.clients }

    /// Clients that receive events.
    public var subscriberCount: Int { counts.subscribers }

    /// Stops serving: removes the socket file (if it is still ours) at once, then disconnects
    /// every client and closes the listener on the main loop. Idempotent and never blocks.
    /// Handlers still running complete, but their responses are discarded.
    public func close() {
        let first = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        var info = stat()
        if stat(path, &info) == 0, UInt64(info.st_dev) == boundFile.device, UInt64(info.st_ino) == boundFile.inode {
            unlink(path)
        }
        let core = self.core
        MainLoop.shared.post { MainLoopActor.assumeIsolated { core.shutDown() } }
        Log.info("control", "closed \(path)")
    }
}
