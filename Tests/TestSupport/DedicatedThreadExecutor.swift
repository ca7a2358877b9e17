import Foundation

/// A task executor with one thread of its own, for test bodies that block (child processes,
/// sockets, `usleep`) and so must not sit on the cooperative pool the code under test needs.
///
/// Runs on: its own `Thread`, started in `init`, which runs the jobs enqueued to it in order.
/// Why it looks like this: Swift Testing finds the running test through task-local values. A plain
/// `Thread` has no task, so an `#expect` on it is reported as «unknown» and the test itself shows
/// ✔. A task that prefers this executor (`withTaskExecutorPreference`) keeps its task-locals while
/// its jobs run on this thread, so every issue is recorded against the right test.
/// After `finish()` the thread ends once its queue is empty; later jobs go to the global executor.
public final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    /// Starts the executor's thread.
    public init(name: String = "test-body") {
        let thread = Thread { [self] in runJobs() }
        thread.name = name
        thread.start()
    }

    /// Queues `job` on this executor's thread (or on the global executor after `finish()`).
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        if finished {
            condition.unlock()
            globalConcurrentExecutor.enqueue(unowned)
            return
        }
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread end once the jobs already queued have run.
    public func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs blocking code on a dedicated thread (never on the cooperative pool, which the code under
/// test needs for its own tasks), inside the calling test's task: `#expect`, `#require` and
/// `Issue.record` in `body` are reported by the test that runs it.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let executor = DedicatedThreadExecutor()
    defer { executor.finish() }
    return try await withTaskExecutorPreference(executor) { try await runBody(body) }
}

/// Not isolated to any actor, so it runs on the preferred task executor (the dedicated thread).
@concurrent private func runBody<T: Sendable>(_ body: @Sendable () throws -> T) async throws -> T {
    try body()
}
