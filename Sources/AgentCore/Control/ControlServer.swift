import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MainLoop
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
/// Concurrency: one poll thread does all socket I/O; each request runs the handler in its own
/// `Task`, so requests (also from one client) run concurrently and responses are sent in order of
/// completion, each carrying its id. A client that does not read is disconnected once its queue
/// exceeds `maximumQueuedBytes`, so it never blocks the others. Call `close()` to stop.
public final class ControlServer: @unchecked Sendable {
    /// The request handler: runs concurrently, once per request.
    public typealias Handler = @Sendable (ControlRequest) async -> ControlResponse

    /// The socket path.
    public let path: String
    /// Bytes that may wait for one slow client before it is disconnected.
    public let maximumQueuedBytes: Int
    /// The longest accepted request line.
    public static let maximumLineBytes = 1 << 20

    let handler: Handler
    let authorizer: PeerAuthorizer
    let lock = NSLock()
    let listenFD: Int32
    let wakeRead: Int32
    let wakeWrite: Int32
    private let boundFile: (device: UInt64, inode: UInt64)
    private let finished = DispatchSemaphore(value: 0)
    var connections: [Int: ControlConnection] = [:]
    var nextConnectionID = 1
    var isClosed = false
    private var didClose = false

    /// Binds `path` and starts serving. Throws `ControlServerError`:
    /// `.alreadyRunning` when another process answers on `path`; a stale socket file is removed.
    public convenience init(path: String, group: String?, handler: @escaping Handler) throws {
        try self.init(path: path, group: group, maximumQueuedBytes: 1 << 20, handler: handler)
    }

    /// As `init(path:group:handler:)` with a custom per-client queue limit.
    public init(path: String, group: String?, maximumQueuedBytes: Int, handler: @escaping Handler) throws {
        var groupID: gid_t?
        if let group {
            guard let gid = PeerAuthorizer.groupID(named: group) else { throw ControlServerError.unknownGroup(group) }
            groupID = gid
        }
        self.path = path
        self.maximumQueuedBytes = maximumQueuedBytes
        self.handler = handler
        self.authorizer = PeerAuthorizer(ownUID: geteuid(), groupID: groupID)

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
        var pipeFDs: [Int32] = [-1, -1]
        let pairType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, pairType, 0, &pipeFDs) == 0 else {
            let error = SystemCallError.current("create wake-up socket pair")
            FileDescriptorIO.close(fd)
            unlink(path)
            throw ControlServerError.system(error)
        }
        listenFD = fd
        boundFile = (UInt64(info.st_dev), UInt64(info.st_ino))
        wakeRead = pipeFDs[0]
        wakeWrite = pipeFDs[1]

        let thread = Thread { [self] in
            self.runLoop()
            self.finished.signal()
        }
        thread.name = "wcs-agent.control"
        thread.start()
        Log.info("control", "listening on \(path)" + (group.map { " (group \($0))" } ?? ""))
    }

    /// Sends `event` as `{"event": ...}` to every subscribed client. Returns how many clients it was
    /// queued for. Never blocks on a slow client.
    @discardableResult
    public func broadcast(_ event: JSONValue) -> Int {
        let line = ControlWire.encodeEvent(event)
        lock.lock()
        var count = 0
        for connection in connections.values where connection.subscribed && !connection.dropped {
            enqueue(line, to: connection)
            count += 1
        }
        lock.unlock()
        wake()
        return count
    }

    /// Connected clients (authorized ones only).
    public var clientCount: Int {
        lock.lock(); defer { lock.unlock() }
        return connections.count
    }

    /// Clients that receive events.
    public var subscriberCount: Int {
        lock.lock(); defer { lock.unlock() }
        return connections.values.filter { $0.subscribed && !$0.dropped }.count
    }

    /// Stops serving, disconnects every client and removes the socket file (if it is still ours).
    /// Idempotent. Handlers still running complete, but their responses are discarded.
    public func close() {
        lock.lock()
        if didClose {
            lock.unlock()
            return
        }
        didClose = true
        isClosed = true
        lock.unlock()
        wake()
        finished.wait()
        var info = stat()
        if stat(path, &info) == 0, UInt64(info.st_dev) == boundFile.device, UInt64(info.st_ino) == boundFile.inode {
            unlink(path)
        }
        Log.info("control", "closed \(path)")
    }

    /// Queues a handler's response for its connection (called from handler tasks).
    func complete(connectionID: Int, requestID: JSONValue, response: ControlResponse) {
        let line = ControlWire.encodeResponse(id: requestID, response)
        lock.lock()
        if let connection = connections[connectionID] {
            connection.inFlight -= 1
            enqueue(line, to: connection)
        }
        lock.unlock()
        wake()
    }

    /// Appends to a connection's queue, dropping the connection when the queue is too long.
    /// Caller holds `lock`.
    func enqueue(_ line: Data, to connection: ControlConnection) {
        guard !connection.dropped else { return }
        if connection.pendingOutput + line.count > maximumQueuedBytes {
            connection.dropped = true
            Log.warning("control", "client \(connection.id) (pid \(connection.peer.pid)) is not reading; disconnecting it")
            return
        }
        connection.output.append(contentsOf: line)
    }

    /// Wakes the poll thread.
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }
}
