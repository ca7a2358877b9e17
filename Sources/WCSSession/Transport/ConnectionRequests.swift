import CWebSockets
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// What other threads ask of one connection: outgoing messages, close, abort. The loop thread
/// picks these up when woken (`lws_cancel_service`, or a posted job before lws is involved).
/// Runs on: any thread (a `Mutex`).
final class ConnectionRequests: Sendable {
    private let state = Mutex(RequestState())

    /// Queues a text message unless `close()`/`abort()` was called or the connection ended.
    /// Returns true when the caller must wake the loop.
    func enqueue(text: String) -> Bool {
        var frame = [UInt8](repeating: 0, count: wcs_lws_pre())
        frame.append(contentsOf: text.utf8)
        return state.withLock { state in
            guard state.accepting else { return false }
            state.outbox.append(frame)
            return state.claimWake()
        }
    }

    /// Records a close request (the first one wins). Returns true when the loop must be woken.
    func requestClose(_ request: CloseFrame) -> Bool {
        state.withLock { state in
            guard state.close == nil, !state.abort else { return false }
            state.close = request
            state.accepting = false
            _ = state.claimWake()
            return true
        }
    }

    /// Records an abort. Returns true when the loop must be woken.
    func requestAbort() -> Bool {
        state.withLock { state in
            guard !state.abort else { return false }
            state.abort = true
            state.accepting = false
            state.outbox.removeAll()
            _ = state.claimWake()
            return true
        }
    }

    /// Called by the loop when it services the connection: clears the wake flag.
    func beginService() -> (hasOutgoing: Bool, close: CloseFrame?, abort: Bool) {
        state.withLock { state in
            state.wakeRequested = false
            return (!state.outbox.isEmpty, state.close, state.abort)
        }
    }

    /// The next payload to write (with headroom), if any.
    func popOutgoing() -> [UInt8]? {
        state.withLock { $0.outbox.isEmpty ? nil : $0.outbox.removeFirst() }
    }

    /// Whether anything is left to write (messages or the close frame).
    var hasPendingWrites: Bool { state.withLock { !$0.outbox.isEmpty || $0.close != nil } }

    var closeRequest: CloseFrame? { state.withLock { $0.close } }

    var abortRequested: Bool { state.withLock { $0.abort } }

    /// The connection ended: later sends are dropped silently.
    func finish() {
        state.withLock { state in
            state.accepting = false
            state.outbox.removeAll()
            state.lwsContext = nil
        }
    }

    /// The lws context the connection lives in, once the loop has chosen it.
    var context: LWSClientContext? {
        get { state.withLock { $0.lwsContext } }
        set { state.withLock { $0.lwsContext = newValue } }
    }
}

/// What other threads asked of a connection, under its mutex.
private struct RequestState {
    /// Text payloads, each already preceded by LWS_PRE bytes of headroom for lws_write.
    var outbox: [[UInt8]] = []
    var close: CloseFrame?
    var abort = false
    var accepting = true
    var wakeRequested = false
    var lwsContext: LWSClientContext?

    /// Coalesces wake-ups: only the first request since the last service wakes the loop.
    mutating func claimWake() -> Bool {
        guard !wakeRequested else { return false }
        wakeRequested = true
        return true
    }
}
