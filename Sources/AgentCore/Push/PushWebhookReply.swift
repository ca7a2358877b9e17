import WCSSession

/// The bytes of a webhook answer: a complete `Connection: close` HTTP/1.1 response with a JSON body.
enum PushWebhookReply {
    /// Reason phrases of the statuses the webhook sends (see docs/config.md).
    static let reasons = [200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed",
                          408: "Request Timeout", 411: "Length Required", 413: "Content Too Large",
                          431: "Request Header Fields Too Large", 503: "Service Unavailable", 504: "Gateway Timeout"]

    /// The response for `status` with `body`.
    static func bytes(status: Int, _ body: JSONValue) -> [UInt8] {
        let text = body.serialized() + "\n"
        var head = "HTTP/1.1 \(status) \(reasons[status] ?? "Error")\r\nContent-Type: application/json\r\n"
        if status == 405 { head += "Allow: POST\r\n" }
        if status == 401 { head += "WWW-Authenticate: \(PushWebhookServer.secretHeader)\r\n" }
        if status == 503 { head += "Retry-After: 1\r\n" }
        head += "Content-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n"
        return Array((head + text).utf8)
    }

    /// The response for a refusal: `{"error": message}`.
    static func error(status: Int, _ message: String) -> [UInt8] {
        bytes(status: status, .object(["error": .string(message)]))
    }

    /// The interim answer to `Expect: 100-continue`.
    static let continueBytes = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
}
