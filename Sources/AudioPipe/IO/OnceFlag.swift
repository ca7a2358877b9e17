import Synchronization

/// A thread-safe flag that is set exactly once (used for idempotent `close()`). Any thread: an
/// atomic, so checked Sendable.
final class OnceFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Sets the flag; returns true only for the call that set it.
    func claim() -> Bool {
        !flag.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Whether the flag has been set.
    var isSet: Bool { flag.load(ordering: .acquiring) }
}
