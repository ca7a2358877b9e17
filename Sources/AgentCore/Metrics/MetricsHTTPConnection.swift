import MainLoop
#if canImport(Glibc)
import Glibc
#endif

/// One scrape: read the request head, check method and path, render the exposition on a task,
/// write the answer, close.
///
/// Runs on: the loop thread (`@MainLoopActor`), driven by GLib fd sources and one timer; the only
/// work off the loop is `render`, awaited on a task that hops back to the loop to answer.
@MainLoopActor
final class MetricsHTTPConnection {
    /// The answers the endpoint gives besides the exposition.
    enum Refusal {
        case badRequest, notFound, methodNotAllowed, timeout, headTooLarge, serviceUnavailable

        var status: (code: Int, reason: String) {
            switch self {
            case .badRequest: (400, "Bad Request")
            case .notFound: (404, "Not Found")
            case .methodNotAllowed: (405, "Method Not Allowed")
            case .timeout: (408, "Request Timeout")
            case .headTooLarge: (431, "Request Header Fields Too Large")
            case .serviceUnavailable: (503, "Service Unavailable")
            }
        }
    }

    let id: Int
    private let fd: Int32
    private unowned let listener: MetricsHTTPListener
    private var head: [UInt8] = []
    private var output: [UInt8] = []
    private var isClosed = false
    private var readWatch: LoopFDWatch?
    private var writeWatch: LoopFDWatch?
    private var timer: LoopTimer?

    init(id: Int, fd: Int32, listener: MetricsHTTPListener) {
        self.id = id
        self.fd = fd
        self.listener = listener
    }

    /// Starts reading and arms the request deadline.
    func start() {
        readWatch = LoopFDWatch(fd: fd, events: .readable) { [weak self] _ in self?.readable() }
        timer = MainLoop.shared.schedule(after: MetricsHTTPServer.requestDeadline) { [weak self] in
            MainLoopActor.assumeIsolated { self?.reply(.timeout) }
        }
    }

    /// Answers with a refusal (plain text) and closes.
    func reply(_ refusal: Refusal) {
        let (code, reason) = refusal.status
        write(status: "\(code) \(reason)", contentType: "text/plain; charset=utf-8", body: "\(reason)\n", includeBody: true)
    }

    private func readable() {
        var chunk = [UInt8](repeating: 0, count: 2048)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) { return }
        guard count > 0 else { return close() }
        head += chunk[0..<count]
        if let end = head.firstRange(of: [13, 10, 13, 10]) {
            return route(String(decoding: head[..<end.lowerBound], as: UTF8.self))
        }
        if head.count > MetricsHTTPServer.maximumHead { reply(.headTooLarge) }
    }

    /// Method and path of the request line decide the answer.
    private func route(_ requestHead: String) {
        readWatch?.cancel()
        readWatch = nil
        let requestLine = requestHead.split(separator: "\r\n", maxSplits: 1).first ?? ""
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return reply(.badRequest) }
        let path = parts[1].split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        guard path == MetricsHTTPServer.path || path == "/" else { return reply(.notFound) }
        guard parts[0] == "GET" || parts[0] == "HEAD" else { return reply(.methodNotAllowed) }
        let includeBody = parts[0] == "GET"
        let render = listener.render
        timer?.cancel()  // the deadline covers the request, not the rendering
        timer = nil
        Task { @MainLoopActor [weak self] in
            let text = await render()
            self?.write(status: "200 OK", contentType: PrometheusText.contentType, body: text, includeBody: includeBody)
        }
    }

    private func write(status: String, contentType: String, body: String, includeBody: Bool) {
        guard !isClosed, output.isEmpty else { return }
        timer?.cancel()
        timer = nil
        readWatch?.cancel()
        readWatch = nil
        let bodyBytes = Array(body.utf8)
        let header = "HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\nContent-Length: \(bodyBytes.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
        output = Array(header.utf8) + (includeBody ? bodyBytes : [])
        flush()
    }

    private func flush() {
        while !output.isEmpty {
            let sent = output.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            if sent > 0 {
                output.removeFirst(sent)
            } else if sent < 0 && errno == EINTR {
                continue
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                if writeWatch == nil { writeWatch = LoopFDWatch(fd: fd, events: .writable) { [weak self] _ in self?.flush() } }
                return
            } else {
                return close()
            }
        }
        close()
    }

    /// Closes the socket and leaves the listener's table. Idempotent.
    private func close() {
        guard !isClosed else { return }
        isClosed = true
        timer?.cancel()
        readWatch?.cancel()
        writeWatch?.cancel()
        timer = nil
        readWatch = nil
        writeWatch = nil
        FileDescriptorIO.close(fd)
        listener.closed(self)
    }
}
