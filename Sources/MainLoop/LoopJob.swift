import CGLib
import Synchronization

/// One closure posted to a `MainLoop`, carried through GLib as the user data of an idle source.
///
/// Runs on: created by any thread, dispatched on the loop thread. The box is passed to GLib with
/// `Unmanaged.passRetained` and released in the source's destroy notify. If the source is
/// destroyed without having run (the loop was stopped first), `dropped` is called instead, so
/// waiters never hang.
final class LoopJob: Sendable {
    let work: @Sendable () -> Void
    let dropped: (@Sendable () -> Void)?
    let registry: PendingJobs
    /// The idle source (set once before it is attached) and whether the job ran.
    private let state = Mutex(JobState())

    init(work: @escaping @Sendable () -> Void, dropped: (@Sendable () -> Void)?, registry: PendingJobs) {
        self.work = work
        self.dropped = dropped
        self.registry = registry
    }

    /// Records the source before it is attached.
    func setSource(_ source: UnsafeMutablePointer<GSource>) {
        state.withLock { $0.source = SourcePointer(source) }
    }

    /// Marks the job as run; returns false if it already ran.
    func markRan() -> Bool {
        state.withLock { job in
            defer { job.ran = true }
            return !job.ran
        }
    }

    /// Whether the job ran.
    var ran: Bool { state.withLock { $0.ran } }

    /// Destroys the job's source (used by `stop()` after the loop thread ended).
    func destroySource() {
        state.withLock { job in
            if let source = job.source?.pointer { g_source_destroy(source) }
        }
    }
}

private struct JobState {
    var source: SourcePointer?
    var ran = false
}

/// A `GSource*` kept under a lock. `@unchecked`: a raw C pointer; GLib's source calls are thread-safe.
struct SourcePointer: @unchecked Sendable {  // unchecked: a raw GSource*; GLib's source calls are thread-safe
    let pointer: UnsafeMutablePointer<GSource>
    init(_ pointer: UnsafeMutablePointer<GSource>) { self.pointer = pointer }
}

/// The jobs attached to a loop that have not run yet, so `stop()` can drop them instead of
/// leaving their waiters hanging. Runs on any thread.
final class PendingJobs: Sendable {
    private let jobs = Mutex<[ObjectIdentifier: LoopJob]>([:])

    func insert(_ job: LoopJob) {
        jobs.withLock { $0[ObjectIdentifier(job)] = job }
    }

    func remove(_ job: LoopJob) {
        _ = jobs.withLock { $0.removeValue(forKey: ObjectIdentifier(job)) }
    }

    func removeAll() -> [LoopJob] {
        jobs.withLock { jobs in
            defer { jobs.removeAll() }
            return Array(jobs.values)
        }
    }
}

/// GSourceFunc of a posted job: runs it once and removes the source.
let loopJobDispatch: @convention(c) (gpointer?) -> gboolean = { data in
    guard let data else { return 0 }
    let job = Unmanaged<LoopJob>.fromOpaque(data).takeUnretainedValue()
    guard job.markRan() else { return 0 }
    job.registry.remove(job)
    job.work()
    return 0 // G_SOURCE_REMOVE
}

/// GDestroyNotify of a posted job: reports a drop if it never ran, then releases the box.
let loopJobDestroy: @convention(c) (gpointer?) -> Void = { data in
    guard let data else { return }
    let job = Unmanaged<LoopJob>.fromOpaque(data).takeRetainedValue()
    guard job.markRan() else { return }
    job.registry.remove(job)
    job.dropped?()
}
