import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MainLoop
import WCSSession

/// The poll thread: accepts, reads requests, writes queued output, closes finished connections.
extension ControlServer {
    func runLoop() {
        var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            lock.lock()
            if isClosed {
                lock.unlock()
                break
            }
            reapFinishedConnections()
            var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)]
            var ids: [Int] = []
            for connection in connections.values {
                var events: Int32 = 0
                if !connection.readClosed && !connection.closeAfterFlush { events |= Int32(POLLIN) }
                if connection.pendingOutput > 0 { events |= Int32(POLLOUT) }
                descriptors.append(pollfd(fd: connection.fd, events: Int16(events), revents: 0))
                ids.append(connection.id)
            }
            lock.unlock()

            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                Log.error("control", SystemCallError.current("poll control sockets").description)
                usleep(100_000)
                continue
            }
            if descriptors[0].revents != 0 { drainWakePipe() }

            lock.lock()
            if isClosed {
                lock.unlock()
                break
            }
            if descriptors[1].revents & Int16(POLLIN) != 0 { acceptPending() }
            for (index, id) in ids.enumerated() {
                let revents = Int32(descriptors[index + 2].revents)
                guard revents != 0, let connection = connections[id] else { continue }
                if revents & Int32(POLLNVAL) != 0 {
                    connection.dropped = true
                    continue
                }
                if revents & Int32(POLLIN | POLLHUP | POLLERR) != 0 && !connection.readClosed {
                    readAvailable(connection, buffer: &readBuffer)
                }
                if revents & Int32(POLLHUP | POLLERR) != 0 { connection.dropped = true }
                if revents & Int32(POLLOUT) != 0 { flush(connection) }
            }
            lock.unlock()
        }
        shutDownAll()
    }

    private func drainWakePipe() {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(wakeRead, &sink, sink.count) > 0 {}
    }

    /// Caller holds `lock`.
    private func acceptPending() {
        while true {
            // Glibc's accept4 is not visible from Swift: set the flags right after accept.
            let fd = accept(listenFD, nil, nil)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                FileDescriptorIO.setNonBlocking(fd)
            }
            if fd < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK {
                    Log.warning("control", SystemCallError.current("accept on", path: path).description)
                }
                return
            }
            guard let peer = PeerAuthorizer.credentials(of: fd), authorizer.allows(peer) else {
                let who = PeerAuthorizer.credentials(of: fd).map { "uid \($0.uid) pid \($0.pid)" } ?? "unknown peer"
                Log.warning("control", "refused control connection from \(who): not root, the agent's user or a member of the socket group")
                let line = ControlWire.encodeResponse(id: .null, .failure(code: ControlErrorCode.permissionDenied, message: "permission denied"))
                _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
                FileDescriptorIO.close(fd)
                continue
            }
            let connection = ControlConnection(id: nextConnectionID, fd: fd, peer: peer)
            nextConnectionID += 1
            connections[connection.id] = connection
            Log.debug("control", "client \(connection.id) connected (uid \(peer.uid), pid \(peer.pid))")
        }
    }

    /// Reads what is available and handles complete lines. Caller holds `lock`.
    private func readAvailable(_ connection: ControlConnection, buffer: inout [UInt8]) {
        let count = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
        if count == 0 {
            connection.readClosed = true
            return
        }
        if count < 0 {
            if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { connection.dropped = true }
            return
        }
        connection.input.append(contentsOf: buffer[0..<count])
        var start = 0
        while let newline = connection.input[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var line = connection.input[start..<newline]
            start = newline + 1
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            handleLine(Data(line), from: connection)
            if connection.closeAfterFlush || connection.dropped { break }
        }
        connection.input.removeFirst(start)
        if connection.input.count > Self.maximumLineBytes {
            connection.input.removeAll()
            reject(connection, id: .null, code: ControlErrorCode.lineTooLong,
                   message: "request line longer than \(Self.maximumLineBytes) bytes")
            connection.closeAfterFlush = true
        }
    }

    /// Caller holds `lock`.
    private func handleLine(_ line: Data, from connection: ControlConnection) {
        switch ControlWire.decodeRequest(line) {
        case .failure(let rejection):
            reject(connection, id: rejection.id, code: ControlErrorCode.badRequest, message: rejection.message)
        case .success(let request) where request.verb == ControlWire.subscribeVerb:
            connection.subscribed = true
            enqueue(ControlWire.encodeResponse(id: request.id, .ok(["subscribed": true])), to: connection)
        case .success(let request):
            connection.inFlight += 1
            let request = ControlRequest(id: request.id, verb: request.verb, args: request.args, peer: connection.peer)
            let connectionID = connection.id
            Task { [self] in
                let response = await handler(request)
                complete(connectionID: connectionID, requestID: request.id, response: response)
            }
        }
    }

    /// Caller holds `lock`.
    private func reject(_ connection: ControlConnection, id: JSONValue, code: String, message: String) {
        enqueue(ControlWire.encodeResponse(id: id, .failure(code: code, message: message)), to: connection)
    }

    /// Writes as much queued output as the socket takes. Caller holds `lock`.
    private func flush(_ connection: ControlConnection) {
        while connection.pendingOutput > 0 {
            let sent = connection.output.withUnsafeBytes { raw in
                send(connection.fd, raw.baseAddress! + connection.outputOffset, connection.pendingOutput,
                     Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if sent > 0 {
                connection.consumeOutput(sent)
                continue
            }
            if sent < 0 && errno == EINTR { continue }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            connection.dropped = true
            return
        }
    }

    /// Closes connections that are done. Caller holds `lock`.
    private func reapFinishedConnections() {
        for (id, connection) in connections where connection.isFinished {
            FileDescriptorIO.close(connection.fd)
            connections[id] = nil
            Log.debug("control", "client \(id) disconnected")
        }
    }

    private func shutDownAll() {
        lock.lock()
        for connection in connections.values { FileDescriptorIO.close(connection.fd) }
        connections.removeAll()
        lock.unlock()
        FileDescriptorIO.close(listenFD)
        FileDescriptorIO.close(wakeRead)
        FileDescriptorIO.close(wakeWrite)
    }
}
