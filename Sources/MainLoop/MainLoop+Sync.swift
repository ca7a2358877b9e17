import Dispatch
import Synchronization

extension MainLoop {
    /// The body of `sync`. `rescue` rethrows the work's error; routing it through a closure
    /// parameter keeps `sync` rethrows while the work itself runs on another thread.
    func syncHelper<T: Sendable>(_ work: @Sendable () throws -> T,
                                 rescue: (Error) throws -> T) rethrows -> T {
        if isCurrentThread { return try work() }
        let outcome: SyncOutcome<T> = withoutActuallyEscaping(work) { escapable in
            // The job only reaches the closure through `holder`, which lets go of it before
            // the waiter wakes, so the closure never outlives this call.
            let holder = SyncWork(escapable)
            let waiter = SyncWaiter<T>()
            let accepted = attachJob({ waiter.finish(.completed(holder.run())) },
                                     dropped: { holder.discard(); waiter.finish(.dropped) })
            guard accepted else {
                holder.discard()
                return .dropped
            }
            return waiter.wait()
        }
        switch outcome {
        case .completed(.success(let value)):
            return value
        case .completed(.failure(let error)):
            return try rescue(error)
        case .dropped:
            Log.debug("mainloop", "\(name): sync() on a stopped loop runs on the calling thread")
            return try work()
        }
    }
}

private enum SyncOutcome<T: Sendable>: Sendable {
    case completed(Result<T, Error>)
    case dropped
}

/// The work of one `sync` call, released before the caller is woken. Runs on the loop thread.
private final class SyncWork<T: Sendable>: Sendable {
    private let work: Mutex<(@Sendable () throws -> T)?>

    init(_ work: @escaping @Sendable () throws -> T) { self.work = Mutex(work) }

    func run() -> Result<T, Error> {
        guard let work = self.work.withLock({ slot in defer { slot = nil }; return slot }) else {
            return .failure(CancellationError())
        }
        return Result(catching: work)
    }

    func discard() { work.withLock { $0 = nil } }
}

/// Hands the outcome of a `sync` job from the loop thread back to the waiting thread.
private final class SyncWaiter<T: Sendable>: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let outcome = Mutex<SyncOutcome<T>>(.dropped)

    func finish(_ result: SyncOutcome<T>) {
        outcome.withLock { $0 = result }
        semaphore.signal()
    }

    func wait() -> SyncOutcome<T> {
        semaphore.wait()
        return outcome.withLock { $0 }
    }
}
