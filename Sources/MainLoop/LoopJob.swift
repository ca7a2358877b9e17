import CGLib
import Foundation

/// One closure posted to a `MainLoop`, carried through GLib as the user data of an idle source.
///
/// The box is passed to GLib with `Unmanaged.passRetained` and released in the source's destroy
/// notify. If the source is destroyed without having run (the loop was stopped first), `dropped`
/// is called instead, so waiters never hang.
final class LoopJob: @unchecked Sendable {
    let work: @Sendable () -> Void
    let dropped: (@Sendable () -> Void)?
    let registry: PendingJobs
    /// Set once when attached; the context keeps the source alive until it is destroyed.
    var source: UnsafeMutablePointer<GSource>?
    /// Touched only by GLib callbacks (or by `stop()` after the loop thread ended).
    var ran = false

    init(work: @escaping @Sendable () -> Void, dropped: (@Sendable () -> Void)?, registry: PendingJobs) {
        self.work = work
        self.dropped = dropped
        self.registry = registry
    }
}

/// The jobs attached to a loop that have not run yet, so `stop()` can drop them instead of
/// leaving their waiters hanging.
final class PendingJobs: @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [ObjectIdentifier: LoopJob] = [:]

    func insert(_ job: LoopJob) {
        lock.lock(); defer { lock.unlock() }
        jobs[ObjectIdentifier(job)] = job
    }

    func remove(_ job: LoopJob) {
        lock.lock(); defer { lock.unlock() }
        jobs[ObjectIdentifier(job)] = nil
    }

    func removeAll() -> [LoopJob] {
        lock.lock(); defer { lock.unlock() }
        let all = Array(jobs.values)
        jobs.removeAll()
        return all
    }
}

/// GSourceFunc of a posted job: runs it once and removes the source.
let loopJobDispatch: @convention(c) (gpointer?) -> gboolean = { data in
    guard let data else { return 0 }
    let job = Unmanaged<LoopJob>.fromOpaque(data).takeUnretainedValue()
    job.ran = true
    job.registry.remove(job)
    job.work()
    return 0 // G_SOURCE_REMOVE
}

/// GDestroyNotify of a posted job: reports a drop if it never ran, then releases the box.
let loopJobDestroy: @convention(c) (gpointer?) -> Void = { data in
    guard let data else { return }
    let job = Unmanaged<LoopJob>.fromOpaque(data).takeRetainedValue()
    guard !job.ran else { return }
    job.registry.remove(job)
    job.dropped?()
}
