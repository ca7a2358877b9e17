import SystemSupport
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import WCSJSON

/// A blocking client for the control socket, made for CLI verbs (one thread, no async).
///
/// ```swift
/// let client = try ControlClient.connect(path: config.socketPath, timeout: 2)
/// let status = try client.request("status", timeout: 5)
/// try client.subscribe(timeout: 5)
/// while true { print(try client.nextEvent(timeout: nil).serialized()) }
/// ```
/// Events that arrive while waiting for a response are kept for `nextEvent`. Not thread-safe:
/// use one client per thread.
public final class ControlClient {
    /// The socket path.
    public let path: String
    private var fd: Int32
    private var input: [UInt8] = []
    private var queuedEvents: [JSONValue] = []
    private var nextID = 1
    /// Answers read while waiting for another one, by id (only ids still awaited are kept).
    private var answers: [JSONValue: JSONValue] = [:]
    /// Ids sent and not answered yet.
    private var awaited: Set<JSONValue> = []
    /// A `hello` (its args, and what checks its result) to send in the same write as the next
    /// request (`helloWithNextRequest`).
    var pendingHello: (args: JSONValue, check: (Result<JSONValue, ControlClientError>) throws -> Void)?

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { close() }

    /// Connects to the daemon. Throws `ControlClientError.daemonNotRunning` for a missing socket or a
    /// refused connection and `.permissionDenied` when the socket file is not accessible.
    public static func connect(path: String, timeout: Double) throws -> ControlClient {
        let address: UnixSocketAddress
        let fd: Int32
        do {
            address = try UnixSocketAddress(path, operation: "connect to")
            fd = try UnixStreamSocket.make(operation: "connect to", path: path)
        } catch {
            throw ControlClientError.system(error)
        }
        let deadline = MonotonicTime.now() + timeout
        while true {
            switch UnixStreamSocket.startConnect(fd, to: address) {
            case 0:
                return ControlClient(path: path, fd: fd)
            case EAGAIN, EINTR:
                // The daemon's accept backlog is full: retry until the deadline.
                guard MonotonicTime.now() < deadline else {
                    FileDescriptorIO.close(fd)
                    throw ControlClientError.timedOut
                }
                usleep(10_000)
            case let code:
                FileDescriptorIO.close(fd)
                switch code {
                case ENOENT, ECONNREFUSED, ENOTDIR: throw ControlClientError.daemonNotRunning(path)
                case EACCES, EPERM: throw ControlClientError.permissionDenied(path)
                default: throw ControlClientError.system(SystemCallError("connect to", path: path, code: code))
                }
            }
        }
    }

    /// Sends `verb` with `args` and waits for its response. Returns the `result` (`null` if none).
    /// Throws `.remote(code, message)` when the daemon answers `ok: false`, `.timedOut`,
    /// `.disconnected`, or `.permissionDenied` when the daemon refused this user. A `hello` set
    /// up by `helloWithNextRequest` goes out in the same write, and its answer is checked first.
    public func request(_ verb: String, args: JSONValue = [:], timeout: Double) throws -> JSONValue {
        let deadline = MonotonicTime.now() + timeout
        var lines = Data()
        var hello: (id: JSONValue, check: (Result<JSONValue, ControlClientError>) throws -> Void)?
        if let pending = pendingHello {
            pendingHello = nil
            let id = takeID()
            lines = ControlWire.encodeRequest(id: id, verb: ControlWire.helloVerb, args: pending.args)
            hello = (id, pending.check)
        }
        let id = takeID()
        try send(lines + ControlWire.encodeRequest(id: id, verb: verb, args: args), deadline: deadline)
        if let hello {
            let outcome: Result<JSONValue, ControlClientError>
            do {
                outcome = .success(try answer(to: hello.id, deadline: deadline))
            } catch let error as ControlClientError {
                outcome = .failure(error)
            }
            try hello.check(outcome)
        }
        return try answer(to: id, deadline: deadline)
    }

    private func takeID() -> JSONValue {
        defer { nextID += 1 }
        let id = JSONValue.number(Double(nextID))
        awaited.insert(id)
        return id
    }

    /// The `result` of request `id`'s answer (reading on until it comes); throws its failure.
    private func answer(to id: JSONValue, deadline: Double) throws -> JSONValue {
        let message = try response(to: id, deadline: deadline)
        guard let ok = message["ok"]?.boolValue else { throw ControlClientError.protocolError("response without \"ok\"") }
        if ok { return message["result"] ?? .null }
        try throwRemote(message)
    }

    private func response(to id: JSONValue, deadline: Double) throws -> JSONValue {
        defer { awaited.remove(id) }
        if let message = answers.removeValue(forKey: id) { return message }
        while true {
            let message = try readMessage(deadline: deadline)
            if let event = message["event"], message["id"] == nil {
                queuedEvents.append(event)
                continue
            }
            let messageID = message["id"] ?? .null
            if messageID == .null, message["ok"]?.boolValue == false {
                try throwRemote(message)
            }
            if messageID == id { return message }
            // Another request's answer: kept if it is still awaited, else a late answer to an earlier, timed-out request.
            if awaited.contains(messageID) { answers[messageID] = message }
        }
    }

    /// Subscribes this connection to events (the `subscribe` verb); then call `nextEvent`.
    public func subscribe(timeout: Double) throws {
        _ = try request(ControlWire.subscribeVerb, timeout: timeout)
    }

    /// The next event, waiting up to `timeout` seconds (`nil`: forever). Throws `.timedOut` or
    /// `.disconnected` (e.g. the daemon stopped).
    public func nextEvent(timeout: Double?) throws -> JSONValue {
        if !queuedEvents.isEmpty { return queuedEvents.removeFirst() }
        let deadline = timeout.map { MonotonicTime.now() + $0 }
        while true {
            let message = try readMessage(deadline: deadline)
            if let event = message["event"], message["id"] == nil { return event }
            if message["id"] == .null, message["ok"]?.boolValue == false { try throwRemote(message) }
        }
    }

    /// Closes the connection (also done on deinit).
    public func close() {
        FileDescriptorIO.close(fd)
        fd = -1
    }

    private func throwRemote(_ message: JSONValue) throws -> Never {
        let code = message["code"]?.stringValue ?? "error"
        if code == ControlErrorCode.permissionDenied { throw ControlClientError.permissionDenied(path) }
        throw ControlClientError.remote(code: code, message: message["error"]?.stringValue ?? "request failed")
    }

    private func send(_ data: Data, deadline: Double?) throws {
        guard fd >= 0 else { throw ControlClientError.disconnected }
        var offset = 0
        while offset < data.count {
            let sent = data.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && errno == EINTR {
                continue
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                try wait(for: Int16(POLLOUT), deadline: deadline)
            } else if errno == EPIPE || errno == ECONNRESET {
                // The daemon may have refused us and closed before we wrote: report its reason.
                if let message = try? readMessage(deadline: MonotonicTime.now() + 1),
                   message["id"] == .null, message["ok"]?.boolValue == false {
                    try throwRemote(message)
                }
                throw ControlClientError.disconnected
            } else {
                throw ControlClientError.system(.current("send to", path: path))
            }
        }
    }

    /// The next line, parsed as a JSON object.
    private func readMessage(deadline: Double?) throws -> JSONValue {
        while true {
            if let newline = input.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(input[..<newline])
                input.removeFirst(newline + 1)
                if line.isEmpty { continue }
                guard let value = try? JSONValue.parse(line), value.objectValue != nil else {
                    throw ControlClientError.protocolError("a line that is not a JSON object")
                }
                return value
            }
            guard fd >= 0 else { throw ControlClientError.disconnected }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                input.append(contentsOf: buffer[0..<count])
            } else if count == 0 {
                throw ControlClientError.disconnected
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                try wait(for: Int16(POLLIN), deadline: deadline)
            } else if errno == ECONNRESET {
                throw ControlClientError.disconnected
            } else {
                throw ControlClientError.system(.current("read from", path: path))
            }
        }
    }

    private func wait(for events: Int16, deadline: Double?) throws {
        var descriptor = pollfd(fd: fd, events: events, revents: 0)
        let ready = poll(&descriptor, 1, FileDescriptorIO.pollTimeout(until: deadline))
        if ready == 0 { throw ControlClientError.timedOut }
    }
}
