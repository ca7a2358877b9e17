import CSSL

/// Reads OpenSSL's per-thread error queue.
enum OpenSSLErrorQueue {
    /// Empties the queue, so that a following `SSL_get_error` only sees errors of the next call.
    static func clear() {
        ERR_clear_error()
    }

    /// The reason of the oldest queued error (e.g. "certificate verify failed"), or `fallback` when
    /// the queue is empty; the queue is emptied.
    static func takeReason(fallback: String) -> String {
        let code = ERR_get_error()
        defer { ERR_clear_error() }
        guard code != 0 else { return fallback }
        if let reason = ERR_reason_error_string(code) {
            return String(cString: reason)
        }
        var buffer = [CChar](repeating: 0, count: 256)
        return buffer.withUnsafeMutableBufferPointer { chars in
            ERR_error_string_n(code, chars.baseAddress, chars.count)
            return String(cString: chars.baseAddress!)
        }
    }
}
