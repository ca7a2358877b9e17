import CWebSockets
import Foundation

/// What other threads ask of one connection: outgoing messages, close, abort. The loop thread
/// picks these up when woken (`lws_cancel_service`, or a posted job before lws is involved).
final class ConnectionRequests: @unchecked Sendable {
    private let lock = NSLock()
    /// Text payloads, each already preceded by LWS_PRE bytes of headroom for lws_write.
    private var outbox: [[UInt8]] = []
    private var close: CloseFrame?
    private var abort = false
    private var accepting = true
    private var wakeRequested = false
    private var lwsContext: LWSClientContext?

    /// Queues a text message unless `close()`/`abort()` was called or the connection ended.
    /// Returns true when the caller must wake the loop.
    func enqueue(text: String) -> Bool {
        var frame = [UInt8](repeating: 0, count: wcs_lws_pre())
        frame.append(contentsOf: text.utf8)
        lock.lock(); defer { lock.unlock() }
        guard accepting else { return false }
        outbox.append(frame)
        return claimWake()
    }

    /// Records a close request (the first one wins). Returns true when the loop must be woken.
    func requestClose(_ request: CloseFrame) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard close == nil, !abort else { return false }
        close = request
        accepting = false
        _ = claimWake()
        return true
    }

    /// Records an abort. Returns true when the loop must be woken.
    func requestAbort() -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard !abort else { return false }
        abort = true
        accepting = false
        outbox.removeAll()
        _ = claimWake()
        return true
    }

    /// Called by the loop when it services the connection: clears the wake flag.
    func beginService() -> (hasOutgoing: Bool, close: CloseFrame?, abort: Bool) {
        lock.lock(); defer { lock.unlock() }
        wakeRequested = false
        return (!outbox.isEmpty, close, abort)
    }

    /// The next payload to write (with headroom), if any.
    func popOutgoing() -> [UInt8]? {
        lock.lock(); defer { lock.unlock() }
        return outbox.isEmpty ? nil : outbox.removeFirst()
    }

    /// Whether anything is left to write (messages or the close frame).
    var hasPendingWrites: Bool {
        lock.lock(); defer { lock.unlock() }
        return !outbox.isEmpty || close != nil
    }

    var closeRequest: CloseFrame? {
        lock.lock(); defer { lock.unlock() }
        return close
    }

    var abortRequested: Bool {
        lock.lock(); defer { lock.unlock() }
        return abort
    }

    /// The connection ended: later sends are dropped silently.
    func finish() {
        lock.lock(); defer { lock.unlock() }
        accepting = false
        outbox.removeAll()
        lwsContext = nil
    }

    /// The lws context the connection lives in, once the loop has chosen it.
    var context: LWSClientContext? {
        get {
            lock.lock(); defer { lock.unlock() }
            return lwsContext
        }
        set {
            lock.lock(); defer { lock.unlock() }
            lwsContext = newValue
        }
    }

    /// Coalesces wake-ups: only the first request since the last service wakes the loop.
    private func claimWake() -> Bool {
        guard !wakeRequested else { return false }
        wakeRequested = true
        return true
    }
}
