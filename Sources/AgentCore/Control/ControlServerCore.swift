import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop
import Synchronization
import WCSSession

/// The connection counts a `ControlServer` reports to any thread, written by its core.
/// Runs on: written on the loop thread, read anywhere (a `Mutex`).
final class ControlServerCounts: Sendable {
    private let state = Mutex((clients: 0, subscribers: 0))

    var clients: Int { state.withLock { $0.clients } }
    var subscribers: Int { state.withLock { $0.subscribers } }

    func set(clients: Int, subscribers: Int) {
        state.withLock { $0 = (clients, subscribers) }
    }
}

/// The control server's work on the main loop: accepts, reads request lines, answers `hello`
/// (when given a responder) and `subscribe` itself, starts handlers, writes queued output, closes
/// finished connections.
///
/// Runs on: the shared loop thread (`@MainLoopActor`), driven by GLib unix-fd sources (one for
/// the listener, one or two per client), so it has no thread, no poll loop and no lock of its
/// own; only the counts that `ControlServer` reads from other threads sit in a `Mutex`.
@MainLoopActor
final class ControlServerCore {
    let listenFD: Int32
    let path: String
    let maximumQueuedBytes: Int
    let hello: ControlServer.HelloResponder?
    let handler: ControlServer.Handler
    let authorizer: PeerAuthorizer
    let counts: ControlServerCounts
    private var acceptor: LoopAcceptor?
    private var connections: [Int: ControlConnection] = [:]
    private var nextConnectionID = 1
    private var closed = false
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Idle clients evicted for newcomers so far (`makeRoom`).
    private var evictions = 0

    nonisolated init(listenFD: Int32, path: String, maximumQueuedBytes: Int, hello: ControlServer.HelloResponder?,
                     handler: @escaping ControlServer.Handler, authorizer: PeerAuthorizer, counts: ControlServerCounts) {
        self.listenFD = listenFD
        self.path = path
        self.maximumQueuedBytes = maximumQueuedBytes
        self.hello = hello
        self.handler = handler
        self.authorizer = authorizer
        self.counts = counts
    }

    /// Starts accepting.
    func start() {
        guard !closed else { return }
        let acceptor = LoopAcceptor(fd: listenFD, subsystem: "control", label: "control connections on \(path)") { [weak self] fd in
            self?.admit(fd)
        }
        self.acceptor = acceptor
        acceptor.start()
    }

    /// Disconnects every client and closes the listening socket. Idempotent.
    func shutDown() {
        guard !closed else { return }
        closed = true
        acceptor?.stop()
        acceptor = nil
        for connection in connections.values { connection.close() }
        connections.removeAll()
        FileDescriptorIO.close(listenFD)
        publishCounts()
    }

    /// Queues an event line for every subscriber.
    func broadcast(_ line: Data) {
        for connection in connections.values where connection.subscribed && !connection.dropped {
            enqueue(line, to: connection)
            settle(connection)
        }
    }

    // MARK: - Connections

    private func admit(_ fd: Int32) {
        guard let peer = PeerAuthorizer.credentials(of: fd), authorizer.allows(peer) else {
            let who = PeerAuthorizer.credentials(of: fd).map { "uid \($0.uid) pid \($0.pid)" } ?? "unknown peer"
            Log.warning("control", "refused control connection from \(who): not root, the agent's user or a member of the socket group")
            let line = ControlWire.encodeResponse(id: .null, .failure(code: ControlErrorCode.permissionDenied, message: "permission denied"))
            _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            FileDescriptorIO.close(fd)
            acceptor?.descriptorFreed()
            return
        }
        guard makeRoom() else {
            Log.warning("control", "refused a control connection (pid \(peer.pid)): \(connections.count) clients, all busy")
            let line = ControlWire.encodeResponse(id: .null, .failure(code: ControlErrorCode.tooManyClients,
                                                                      message: "too many control clients, all busy; retry"))
            _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            FileDescriptorIO.close(fd)
            acceptor?.descriptorFreed()
            return
        }
        let connection = ControlConnection(id: nextConnectionID, fd: fd, peer: peer)
        nextConnectionID += 1
        connections[connection.id] = connection
        connection.readWatch = LoopFDWatch(fd: fd, events: .readable) { [weak self, weak connection] events in
            guard let self, let connection else { return }
            self.readable(connection, events)
        }
        publishCounts()
        Log.debug("control", "client \(connection.id) connected (uid \(peer.uid), pid \(peer.pid))")
    }

    /// Keeps the clients under the descriptor budget (`DescriptorBudget.controlConnections`): at the
    /// cap, the idle client (nothing in flight, nothing to send) quiet for longest is told
    /// `too_many_clients` and closed, clients that only hold a connection before event followers.
    /// False when every client is busy (the newcomer is refused instead).
    private func makeRoom() -> Bool {
        let cap = DescriptorBudget.controlConnections()
        while connections.count >= cap {
            let idle = connections.values.filter(\.isIdle)
            guard let victim = idle.min(by: { ($0.subscribed ? 1 : 0, $0.lastActivity) < ($1.subscribed ? 1 : 0, $1.lastActivity) })
            else { return false }
            evictions += 1
            if evictions == 1 || evictions % 100 == 0 {
                Log.notice("control", "\(connections.count) control clients at the cap of \(cap) (a quarter of the descriptor limit): "
                    + "evicting the longest idle ones (\(evictions) so far)")
            }
            enqueue(ControlWire.encodeResponse(id: .null, .failure(code: ControlErrorCode.tooManyClients,
                                                                   message: "too many control clients; this idle one is closed")), to: victim)
            victim.flush()
            victim.dropped = true
            settle(victim)
        }
        return true
    }

    private func readable(_ connection: ControlConnection, _ events: LoopFDEvents) {
        if events.contains(.invalid) { connection.dropped = true }
        if connection.wantsInput {
            connection.receive(into: &readBuffer)
            handleLines(of: connection)
        }
        if events.contains(.error) { connection.dropped = true }
        settle(connection)
    }

    /// Brings the watches in line with the connection's state; closes it when it is done.
    private func settle(_ connection: ControlConnection) {
        if connection.pendingOutput > 0 && !connection.dropped { connection.flush() }
        if connection.isFinished {
            connection.close()
            connections[connection.id] = nil
            publishCounts()
            acceptor?.descriptorFreed()
            Log.debug("control", "client \(connection.id) disconnected")
            return
        }
        if !connection.wantsInput, connection.readWatch != nil {
            connection.readWatch?.cancel()
            connection.readWatch = nil
        }
        if connection.pendingOutput > 0, connection.writeWatch == nil {
            connection.writeWatch = LoopFDWatch(fd: connection.fd, events: .writable) { [weak self, weak connection] events in
                guard let self, let connection else { return }
                if events.contains(.error) || events.contains(.invalid) { connection.dropped = true }
                self.settle(connection)
            }
        } else if connection.pendingOutput == 0, let watch = connection.writeWatch {
            watch.cancel()
            connection.writeWatch = nil
        }
    }

    private func handleLines(of connection: ControlConnection) {
        var start = 0
        let input = connection.input
        while let newline = input[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var line = input[start..<newline]
            start = newline + 1
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            connection.lastActivity = MonotonicTime.now()
            handleLine(Data(line), from: connection)
            if connection.closeAfterFlush || connection.dropped { break }
        }
        connection.input.removeFirst(start)
        if connection.input.count > ControlServer.maximumLineBytes {
            connection.input.removeAll()
            reject(connection, id: .null, code: ControlErrorCode.lineTooLong,
                   message: "request line longer than \(ControlServer.maximumLineBytes) bytes")
            connection.closeAfterFlush = true
        }
    }

    private func handleLine(_ line: Data, from connection: ControlConnection) {
        switch ControlWire.decodeRequest(line) {
        case .failure(let rejection):
            reject(connection, id: rejection.id, code: ControlErrorCode.badRequest, message: rejection.message)
        case .success(let request) where request.verb == ControlWire.helloVerb && hello != nil:
            let response = hello!(ControlRequest(id: request.id, verb: request.verb, args: request.args, peer: connection.peer))
            if case .failure = response { connection.helloRefused = true } else { connection.helloRefused = false }
            enqueue(ControlWire.encodeResponse(id: request.id, response), to: connection)
        case .success(let request) where connection.helloRefused:
            reject(connection, id: request.id, code: ControlFailureCode.protocolMismatch.rawValue,
                   message: "\(request.verb) not run: this connection's hello was refused")
        case .success(let request) where request.verb == ControlWire.subscribeVerb:
            connection.subscribed = true
            publishCounts()
            enqueue(ControlWire.encodeResponse(id: request.id, .ok(["subscribed": true])), to: connection)
        case .success(let request):
            connection.inFlight += 1
            let request = ControlRequest(id: request.id, verb: request.verb, args: request.args, peer: connection.peer)
            let handler = self.handler
            Task { @MainLoopActor [weak self, weak connection] in
                let response = await handler(request)
                guard let self, let connection, !self.closed else { return }
                connection.inFlight -= 1
                self.enqueue(ControlWire.encodeResponse(id: request.id, response), to: connection)
                self.settle(connection)
            }
        }
    }

    private func reject(_ connection: ControlConnection, id: JSONValue, code: String, message: String) {
        enqueue(ControlWire.encodeResponse(id: id, .failure(code: code, message: message)), to: connection)
    }

    private func enqueue(_ line: Data, to connection: ControlConnection) {
        let wasDropped = connection.dropped
        if !connection.enqueue(line, limit: maximumQueuedBytes) && !wasDropped {
            Log.warning("control", "client \(connection.id) (pid \(connection.peer.pid)) is not reading; disconnecting it")
            publishCounts()
        }
    }

    private func publishCounts() {
        let clients = connections.count
        let subscribers = connections.values.filter { $0.subscribed && !$0.dropped }.count
        counts.set(clients: clients, subscribers: subscribers)
    }
}
