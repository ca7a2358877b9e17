import Glibc
import Synchronization

/// A `MainLoop` is a serial executor: each job becomes an idle source on the loop's GLib
/// context and runs on the loop thread, in FIFO order with `post`ed work.
///
/// Runs on: `enqueue` on any thread; jobs on the loop thread. Once a (non-shared) loop is
/// stopped, its jobs run on whichever thread enqueues them, one at a time in FIFO order (a
/// drain queue), so an actor bound to a stopped loop stays serial and its awaiting tasks
/// finish instead of hanging.
extension MainLoop: SerialExecutor {
    /// Posts `job` to the loop; it runs there with this loop as its executor.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        let accepted = attachJob({ job.runSynchronously(on: executor) },
                                 dropped: { [self] in runOrphan(job) })
        if !accepted { runOrphan(job) }
    }

    /// This loop as an unowned executor (what actors bound to it return as `unownedExecutor`).
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` succeed on the loop thread (and on the thread draining a stopped
    /// loop's jobs); crashes with the loop's name anywhere else.
    public func checkIsolated() {
        precondition(isIsolatedHere, "not on the thread of main loop '\(name)'")
    }

    /// Whether the current thread may touch state isolated to this executor.
    var isIsolatedHere: Bool {
        if isCurrentThread { return true }
        return orphans.withLock { orphans in
            guard let drainer = orphans.drainer else { return false }
            return pthread_equal(drainer, pthread_self()) != 0
        }
    }

    /// Runs a job that can no longer reach the loop thread, serially with other such jobs.
    func runOrphan(_ job: UnownedJob) {
        let mustDrain = orphans.withLock { orphans -> Bool in
            orphans.jobs.append(job)
            guard orphans.drainer == nil else { return false }
            orphans.drainer = pthread_self()
            return true
        }
        guard mustDrain else { return }
        let executor = asUnownedSerialExecutor()
        while let next = orphans.withLock({ $0.next() }) {
            next.runSynchronously(on: executor)
        }
    }
}

/// Executor jobs of a stopped loop and the thread draining them.
struct OrphanJobs: Sendable {
    var jobs: [UnownedJob] = []
    var drainer: pthread_t?

    /// The next job, or nil (releasing the drainer role) when the queue is empty.
    mutating func next() -> UnownedJob? {
        guard !jobs.isEmpty else {
            drainer = nil
            return nil
        }
        return jobs.removeFirst()
    }
}
