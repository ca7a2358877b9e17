import Foundation

/// A thread-safe flag that is set exactly once (used for idempotent `close()`).
final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false

    /// Sets the flag; returns true only for the call that set it.
    func claim() -> Bool {
        lock.withLock {
            defer { set = true }
            return !set
        }
    }

    /// Whether the flag has been set.
    var isSet: Bool { lock.withLock { set } }
}
