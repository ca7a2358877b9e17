import Foundation
import MainLoop
import WCSSession
#if canImport(Glibc)
import Glibc
#endif

/// One webhook request on its own thread: read the head, route, check the secret, read the body,
/// hand the push to the intake, answer, close. Blocking I/O with a read/write timeout.
struct PushWebhookConnection {
    /// Seconds a client may take to send its request.
    static let ioTimeout = 5
    /// Seconds the answer may wait for the wake.
    static let intakeTimeout: Double = 120

    let fd: Int32
    let server: PushWebhookServer

    func serve() {
        var limit = timeval(tv_sec: Self.ioTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let (status, body) = handle()
        Self.reply(fd, status: status, body)
        drain()
    }

    /// Reads what the client still sends (a body after an early refusal) so closing does not
    /// reset the connection before it has read the answer.
    private func drain() {
        var total = 0
        while total < 64 * 1024 {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) > 0, let chunk = receive(), !chunk.isEmpty else { return }
            total += chunk.count
        }
    }

    private func handle() -> (Int, JSONValue) {
        var buffer: [UInt8] = []
        var headEnd: Int?
        while headEnd == nil {
            guard buffer.count <= PushHTTPRequestHead.maximumSize else { return failure(431, "request head too large") }
            guard let chunk = receive(), !chunk.isEmpty else { return failure(400, "incomplete request") }
            buffer += chunk
            headEnd = PushHTTPRequestHead.endOfHead(in: buffer)
        }
        guard let end = headEnd, let head = PushHTTPRequestHead(buffer[..<(end - 4)]) else {
            return failure(400, "malformed HTTP request")
        }
        guard head.path == PushWebhookServer.path else { return failure(404, "not found: POST \(PushWebhookServer.path)") }
        guard head.method == "POST" else { return failure(405, "method not allowed: POST \(PushWebhookServer.path)") }
        let given = head.headers[PushWebhookServer.secretHeader.lowercased()].map { Array($0.utf8) } ?? []
        guard ConstantTimeComparison.equal(given, server.secret), !given.isEmpty else {
            Log.warning("push", "webhook: refused a request with a \(given.isEmpty ? "missing" : "wrong") \(PushWebhookServer.secretHeader)")
            return failure(401, "missing or wrong \(PushWebhookServer.secretHeader)")
        }
        if head.headers["transfer-encoding"] != nil {
            return failure(411, "send the body with Content-Length (chunked bodies are not supported)")
        }
        guard let lengthText = head.headers["content-length"] else { return failure(411, "Content-Length required") }
        guard let length = Int(lengthText), length >= 0 else { return failure(400, "invalid Content-Length") }
        guard length <= PushPayload.maximumSize else {
            return failure(413, "push payload too large (\(length) bytes, at most \(PushPayload.maximumSize))")
        }
        if head.headers["expect"]?.lowercased() == "100-continue" {
            _ = FileDescriptorIO.writeAll(fd, "HTTP/1.1 100 Continue\r\n\r\n")
        }
        var body = Array(buffer[end...])
        while body.count < length {
            guard let chunk = receive(), !chunk.isEmpty else { return failure(400, "body shorter than Content-Length") }
            body += chunk
        }
        let payload: PushPayload
        do {
            payload = try PushPayload(data: Data(body.prefix(length)))
        } catch {
            Log.warning("push", "webhook: \(error)")
            return failure(400, error.description)
        }
        Log.info("push", "webhook: push for call \(payload.callId)")
        guard let answer = runIntake(payload) else { return failure(504, "the agent did not answer in time") }
        return (200, answer)
    }

    /// Runs the async intake from this (non-pool) thread and waits for its answer.
    private func runIntake(_ payload: PushPayload) -> JSONValue? {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        let intake = server.intake
        Task {
            box.value = await intake(payload)
            done.signal()
        }
        guard done.wait(timeout: .now() + Self.intakeTimeout) == .success else { return nil }
        return box.value
    }

    private func receive() -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            return Array(chunk.prefix(n))
        }
    }

    private func failure(_ status: Int, _ message: String) -> (Int, JSONValue) {
        (status, .object(["error": .string(message)]))
    }

    /// Writes a complete `Connection: close` answer with a JSON body.
    static func reply(_ fd: Int32, status: Int, _ body: JSONValue) {
        let reasons = [200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed",
                       411: "Length Required", 413: "Content Too Large", 431: "Request Header Fields Too Large",
                       503: "Service Unavailable", 504: "Gateway Timeout"]
        let text = body.serialized() + "\n"
        var head = "HTTP/1.1 \(status) \(reasons[status] ?? "Error")\r\nContent-Type: application/json\r\n"
        if status == 405 { head += "Allow: POST\r\n" }
        if status == 401 { head += "WWW-Authenticate: \(PushWebhookServer.secretHeader)\r\n" }
        head += "Content-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n"
        _ = FileDescriptorIO.writeAll(fd, head + text)
        shutdown(fd, Int32(SHUT_WR))
    }
}

/// Carries the intake's answer from its task to the waiting connection thread.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: JSONValue?
    var value: JSONValue? {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}
