import MainLoop

/// The code and reason of a WebSocket close frame (RFC 6455 §5.5.1, §7.4).
struct CloseFrame: Sendable, Equatable {
    let code: Int
    let reason: String

    init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// A frame we may send: codes that must not go on the wire (1005, 1006, 1015, out of
    /// range) become 1000 with a warning; the reason is cut to 123 bytes of UTF-8 on a
    /// character boundary.
    init(sending code: Int, reason: String) {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999:
            self.code = code
        default:
            Log.warning("transport", "close code \(code) cannot be sent; using 1000")
            self.code = 1000
        }
        var truncated = ""
        for character in reason {
            guard truncated.utf8.count + String(character).utf8.count <= 123 else { break }
            truncated.append(character)
        }
        self.reason = truncated
    }

    /// Parses a received close payload: big-endian code, then UTF-8 reason; 1005 when empty.
    init(payload: UnsafeRawBufferPointer) {
        code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005
        reason = payload.count > 2 ? String(decoding: payload[2...], as: UTF8.self) : ""
    }
}
