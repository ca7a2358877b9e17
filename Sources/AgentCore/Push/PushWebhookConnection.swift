import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop
import WCSSession

/// One webhook connection on the main loop: read the request as it arrives, refuse early, hand
/// the push to the coalescer, write the answer, then drain and close.
///
/// Runs on: the loop thread (`@MainLoopActor`), driven by GLib unix-fd sources and one timer; no
/// thread, no blocking call. The whole request (head and body) must arrive within
/// `PushWebhookServer.requestDeadline` seconds of accept, or the client gets 408.
@MainLoopActor
final class PushWebhookConnection {
    enum Phase { case reading, waitingForIntake, writing, draining, closed }

    let id: Int
    let fd: Int32
    /// `CLOCK_MONOTONIC` seconds at accept.
    let acceptedAt: Double
    private(set) var phase = Phase.reading
    private var reader: PushWebhookRequestReader
    private var sentContinue = false
    private var output: [UInt8] = []
    private var readWatch: LoopFDWatch?
    private var writeWatch: LoopFDWatch?
    private var timer: LoopTimer?
    private unowned let server: PushWebhookListener

    init(id: Int, fd: Int32, server: PushWebhookListener) {
        self.id = id
        self.fd = fd
        self.server = server
        self.acceptedAt = MonotonicTime.now()
        reader = PushWebhookRequestReader(secret: server.secret)
    }

    /// Whether the secret header arrived and matched.
    var isAuthenticated: Bool { reader.isAuthenticated }

    /// Request bytes received per second since accept (how "slow" an unauthenticated client is).
    var receiveRate: Double { Double(reader.received) / max(0.001, MonotonicTime.now() - acceptedAt) }

    /// Starts reading and arms the request deadline.
    func start() {
        readWatch = LoopFDWatch(fd: fd, events: .readable) { [weak self] _ in self?.readable() }
        arm(after: PushWebhookServer.requestDeadline) { connection in
            guard connection.phase == .reading else { return }
            connection.refuse(408, "the request did not arrive within \(PushWebhookServer.requestDeadline) s")
        }
    }

    /// Ends the connection with `status` (eviction or shutdown), if it has not answered yet.
    func evict(_ status: Int, _ message: String) {
        guard phase == .reading || phase == .waitingForIntake else { return close() }
        refuse(status, message)
    }

    /// Reads what has arrived; returns whether the client is still unauthenticated and reading.
    func catchUp() -> Bool {
        readable()
        return phase == .reading && !isAuthenticated
    }

    private func readable() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            if count <= 0 {
                // EOF or error: a reading client gave up; a draining one is done.
                return phase == .reading ? refuse(400, "incomplete request") : close()
            }
            guard phase == .reading else { continue } // draining: discard
            process(reader.append(chunk[0..<count]))
            guard phase == .reading || phase == .draining else { return }
        }
    }

    private func process(_ progress: PushWebhookRequestReader.Progress) {
        switch progress {
        case .needMore:
            if reader.owesContinue && !sentContinue {
                sentContinue = true
                _ = PushWebhookReply.continueBytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            }
        case .refuse(let status, let message):
            refuse(status, message)
        case .complete(let body):
            let payload: PushPayload
            do {
                payload = try PushPayload(data: Data(body))
            } catch {
                Log.warning("push", "webhook: \(error)")
                return refuse(400, error.description)
            }
            Log.info("push", "webhook: push for call \(payload.callId)")
            phase = .waitingForIntake
            readWatch?.cancel()
            readWatch = nil
            arm(after: PushWebhookServer.intakeTimeout) { connection in
                guard connection.phase == .waitingForIntake else { return }
                connection.refuse(504, "the agent did not answer in time")
            }
            server.coalescer.submit(payload) { [weak self] answer in
                guard let self, self.phase == .waitingForIntake else { return }
                self.answer(PushWebhookReply.bytes(status: 200, answer))
            }
        }
    }

    private func refuse(_ status: Int, _ message: String) {
        answer(PushWebhookReply.error(status: status, message))
    }

    /// Writes the answer, then half-closes and drains what the client still sends.
    private func answer(_ bytes: [UInt8]) {
        guard phase != .writing, phase != .draining, phase != .closed else { return }
        phase = .writing
        output = bytes
        readWatch?.cancel()
        readWatch = nil
        flush()
    }

    private func flush() {
        while !output.isEmpty {
            let sent = output.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            if sent > 0 {
                output.removeFirst(sent)
                continue
            }
            if sent < 0 && errno == EINTR { continue }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                if writeWatch == nil {
                    writeWatch = LoopFDWatch(fd: fd, events: .writable) { [weak self] _ in self?.flush() }
                }
                return
            }
            return close()
        }
        writeWatch?.cancel()
        writeWatch = nil
        // Read what the client still sends (a body after an early refusal) so closing does not
        // reset the connection before it has read the answer; give up after a short linger.
        shutdown(fd, Int32(SHUT_WR))
        phase = .draining
        readWatch = LoopFDWatch(fd: fd, events: .readable) { [weak self] _ in self?.readable() }
        arm(after: PushWebhookServer.lingerTime) { $0.close() }
    }

    /// Closes the socket and leaves the server's table. Idempotent.
    func close() {
        guard phase != .closed else { return }
        phase = .closed
        timer?.cancel()
        timer = nil
        readWatch?.cancel()
        readWatch = nil
        writeWatch?.cancel()
        writeWatch = nil
        FileDescriptorIO.close(fd)
        server.closed(self)
    }

    /// Runs `action` on the loop after `seconds`, replacing the previous timer.
    private func arm(after seconds: Double, _ action: @escaping @MainLoopActor (PushWebhookConnection) -> Void) {
        timer?.cancel()
        timer = MainLoop.shared.schedule(after: seconds) { [weak self] in
            MainLoopActor.assumeIsolated {
                guard let self else { return }
                action(self)
            }
        }
    }
}
