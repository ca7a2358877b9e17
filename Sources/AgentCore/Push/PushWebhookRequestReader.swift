import MainLoop

/// Reads one webhook request as its bytes arrive and decides as early as it can.
///
/// Runs on: whatever owns it (the webhook connection, on the main loop); a plain value type.
/// The request line is judged (404, 405) as soon as it is complete and the secret as soon as
/// its header line is, so a client without the secret is refused after its first header
/// instead of being waited for; the head may not exceed `PushHTTPRequestHead.maximumSize`.
struct PushWebhookRequestReader {
    /// What the bytes so far amount to.
    enum Progress: Equatable {
        /// More bytes are needed.
        case needMore
        /// Refuse the request with this status and message.
        case refuse(status: Int, message: String)
        /// A complete, authenticated request with its body.
        case complete(body: [UInt8])
    }

    private let secret: [UInt8]
    private var buffer: [UInt8] = []
    /// Bytes of `buffer` already split into complete header lines.
    private var scanned = 0
    private var sawRequestLine = false
    /// Whether the secret header arrived and matched.
    private(set) var isAuthenticated = false
    private var head: PushHTTPRequestHead?
    private var bodyStart = 0
    private var bodyLength = 0
    /// Whether a `100 Continue` is owed (set once, when the head completes).
    private(set) var owesContinue = false

    init(secret: [UInt8]) { self.secret = secret }

    /// Bytes received so far.
    var received: Int { buffer.count }

    /// Adds bytes and reports the progress.
    mutating func append(_ bytes: some Collection<UInt8>) -> Progress {
        buffer.append(contentsOf: bytes)
        if let head { return bodyProgress(head) }
        while let lineEnd = nextLineEnd() {
            let line = buffer[scanned..<lineEnd]
            scanned = lineEnd + 2
            // A blank line ends the head, but before the request line it is no request at all
            // (found by fuzzing: the head would have been an empty range before its own start).
            if line.isEmpty { return sawRequestLine ? headComplete() : .refuse(status: 400, message: "malformed HTTP request") }
            if let refusal = judge(line) { return refusal }
        }
        if buffer.count > PushHTTPRequestHead.maximumSize { return .refuse(status: 431, message: "request head too large") }
        return .needMore
    }

    /// The index of the next CRLF at or after `scanned`.
    private func nextLineEnd() -> Int? {
        guard buffer.count >= scanned + 2 else { return nil }
        var index = scanned
        while index + 1 < buffer.count {
            if buffer[index] == 13 && buffer[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// Checks the request line or one header line; returns a refusal or nil.
    private mutating func judge(_ line: ArraySlice<UInt8>) -> Progress? {
        if !sawRequestLine {
            sawRequestLine = true
            guard let request = PushHTTPRequestHead(line) else { return .refuse(status: 400, message: "malformed HTTP request") }
            guard request.path == PushWebhookServer.path else {
                return .refuse(status: 404, message: "not found: POST \(PushWebhookServer.path)")
            }
            guard request.method == "POST" else {
                return .refuse(status: 405, message: "method not allowed: POST \(PushWebhookServer.path)")
            }
            return nil
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return .refuse(status: 400, message: "malformed HTTP request") }
        let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).trimmingWhitespace().lowercased()
        guard name == PushWebhookServer.secretHeader.lowercased() else { return nil }
        let given = Array(String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingWhitespace().utf8)
        guard !given.isEmpty, ConstantTimeComparison.equal(given, secret) else { return refuseSecret(missing: given.isEmpty) }
        isAuthenticated = true
        return nil
    }

    private func refuseSecret(missing: Bool) -> Progress {
        Log.warning("push", "webhook: refused a request with a \(missing ? "missing" : "wrong") \(PushWebhookServer.secretHeader)")
        return .refuse(status: 401, message: "missing or wrong \(PushWebhookServer.secretHeader)")
    }

    private mutating func headComplete() -> Progress {
        guard let head = PushHTTPRequestHead(buffer[0..<(scanned - 4)]) else {
            return .refuse(status: 400, message: "malformed HTTP request")
        }
        guard isAuthenticated, let given = head.headers[PushWebhookServer.secretHeader.lowercased()],
              ConstantTimeComparison.equal(Array(given.utf8), secret) else {
            return refuseSecret(missing: head.headers[PushWebhookServer.secretHeader.lowercased()] == nil)
        }
        if head.headers["transfer-encoding"] != nil {
            return .refuse(status: 411, message: "send the body with Content-Length (chunked bodies are not supported)")
        }
        guard let lengthText = head.headers["content-length"] else { return .refuse(status: 411, message: "Content-Length required") }
        guard let length = Int(lengthText), length >= 0 else { return .refuse(status: 400, message: "invalid Content-Length") }
        guard length <= PushPayload.maximumSize else {
            return .refuse(status: 413, message: "push payload too large (\(length) bytes, at most \(PushPayload.maximumSize))")
        }
        owesContinue = head.headers["expect"]?.lowercased() == "100-continue"
        self.head = head
        bodyStart = scanned
        bodyLength = length
        return bodyProgress(head)
    }

    private func bodyProgress(_ head: PushHTTPRequestHead) -> Progress {
        guard buffer.count - bodyStart >= bodyLength else { return .needMore }
        return .complete(body: Array(buffer[bodyStart..<(bodyStart + bodyLength)]))
    }
}

private extension String {
    /// Without the optional whitespace HTTP allows around a header value (RFC 9110 OWS: space, tab).
    func trimmingWhitespace() -> String {
        trimming { $0 == " " || $0 == "\t" }
    }
}
