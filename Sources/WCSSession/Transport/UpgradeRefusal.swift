import CWebSockets

/// What the server said when it refused the WebSocket upgrade: its HTTP status and `Retry-After`.
///
/// Read inside lws's CLIENT_CONNECTION_ERROR callback, while the response headers are still attached
/// to the wsi (lws frees them when it closes the wsi right after). Only the delta-seconds form of
/// `Retry-After` is read (RFC 9110 §10.2.3); an HTTP-date, garbage or a negative value counts as none,
/// and a value is capped at `maximumRetryAfter` (the header is the server's, hence untrusted).
struct UpgradeRefusal: Sendable, Equatable, CustomStringConvertible {
    /// The largest wait taken from a server's `Retry-After`, in seconds.
    static let maximumRetryAfter: Double = 3600

    /// The response status, or nil when no response came (lws reports 0).
    let status: Int?
    /// The server's `Retry-After`, in seconds.
    let retryAfter: Double?

    init(status: Int?, retryAfterHeader: String?) {
        self.status = status
        self.retryAfter = retryAfterHeader.flatMap(Self.seconds)
    }

    init(_ wsi: OpaquePointer) {
        let code = Int(lws_http_client_http_response(wsi))
        var buffer = [CChar](repeating: 0, count: 32)
        let length = lws_hdr_copy(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_RETRY_AFTER)
        let header = length > 0 ? String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        self.init(status: code > 0 ? code : nil, retryAfterHeader: header)
    }

    /// Delta-seconds: ASCII digits only (RFC 9110), capped.
    static func seconds(_ text: String) -> Double? {
        let trimmed = text.trimming { $0 == " " || $0 == "\t" }
        guard !trimmed.isEmpty, trimmed.count <= 10, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }),
              let value = Double(trimmed) else { return nil }
        return min(value, maximumRetryAfter)
    }

    /// " (HTTP 503, Retry-After 5 s)", or "" when nothing came.
    var description: String {
        var parts: [String] = []
        if let status { parts.append("HTTP \(status)") }
        if let retryAfter { parts.append("Retry-After \(Int(retryAfter)) s") }
        return parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"
    }
}
