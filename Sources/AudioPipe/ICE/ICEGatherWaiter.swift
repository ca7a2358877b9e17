import Foundation

/// Hands the outcome of gathering from the loop thread to the task awaiting `gather()`.
/// The outcome may arrive before or after the task starts waiting; only the first one counts.
final class ICEGatherWaiter: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome: Result<ICELocalParameters, ICEError>?
    private var continuation: CheckedContinuation<ICELocalParameters, Error>?

    /// Records the outcome and wakes the waiter, if any. Later calls are ignored.
    func finish(_ result: Result<ICELocalParameters, ICEError>) {
        lock.lock()
        guard outcome == nil else {
            lock.unlock()
            return
        }
        outcome = result
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume(with: result.mapError { $0 as Error })
    }

    /// Waits for the outcome.
    func value() async throws -> ICELocalParameters {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ICELocalParameters, Error>) in
            lock.lock()
            if let outcome {
                lock.unlock()
                continuation.resume(with: outcome.mapError { $0 as Error })
            } else {
                self.continuation = continuation
                lock.unlock()
            }
        }
    }
}
