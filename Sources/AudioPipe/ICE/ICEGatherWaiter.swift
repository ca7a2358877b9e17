import MainLoop

/// Hands the outcome of gathering from libnice's "candidate-gathering-done" (or the gather
/// timer) to the task awaiting `gather()`. The outcome may arrive before or after the task
/// starts waiting; only the first one counts.
///
/// Runs on: the loop thread (`@MainLoopActor`), like the session that owns it, so it needs no
/// lock: both the waiting task (isolated while it parks) and the finishing callback run there.
@MainLoopActor
final class ICEGatherWaiter {
    private var outcome: Result<ICELocalParameters, ICEError>?
    private var continuation: CheckedContinuation<ICELocalParameters, Error>?

    /// Records the outcome and wakes the waiter, if any. Later calls are ignored.
    func finish(_ result: Result<ICELocalParameters, ICEError>) {
        guard outcome == nil else { return }
        outcome = result
        let waiting = continuation
        continuation = nil
        waiting?.resume(with: result.mapError { $0 as Error })
    }

    /// Waits for the outcome.
    func value() async throws -> ICELocalParameters {
        if let outcome { return try outcome.get() }
        return try await withCheckedThrowingContinuation { continuation in
            self.continuation = continuation
        }
    }
}
