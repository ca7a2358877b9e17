import CGLib
import Dispatch
import Glibc
import Synchronization

/// The error thrown by `MainLoop.run` when the loop stopped before the work could run.
public struct MainLoopStoppedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name of the stopped loop.
    public let loopName: String

    /// A one-line explanation naming the loop.
    public var description: String { "main loop '\(loopName)' is stopped" }
}

/// A dedicated thread running a `GMainLoop` on its own `GMainContext`.
///
/// Everything that touches a C handle of an event-driven library (libwebsockets, libnice) runs
/// on this thread. Other threads hand work over with `post` or `run` (tests also with the
/// module-internal, blocking `sync`); all of them are thread-safe. Posted work runs in FIFO
/// order. A loop is also a `SerialExecutor` (see `MainLoop+Executor.swift`): `MainLoopActor`
/// runs its jobs on `MainLoop.shared`, so code isolated to that actor is checked by the
/// compiler to run on the loop thread.
///
/// A loop lives until `stop()`; `MainLoop.shared` is started on first use and lives for the
/// whole process.
public final class MainLoop: @unchecked Sendable { // @unchecked: holds GMainContext*/GMainLoop* (thread-safe GLib objects)
    /// The process-wide loop, started lazily on first access; it is never stopped.
    public static let shared = MainLoop(name: "wcs-main-loop", isShared: true)

    /// The name given at creation (also the thread name, truncated to 15 bytes).
    public let name: String
    /// The loop's `GMainContext*`. Valid for the lifetime of this object.
    public let context: OpaquePointer
    /// The `GMainLoop*` running on the loop thread. Valid for the lifetime of this object.
    public let loop: OpaquePointer

    private let isShared: Bool
    private let state = Mutex(LoopState())
    private let pending = PendingJobs()
    /// Executor jobs that arrive once the loop is stopped (see `MainLoop+Executor.swift`).
    let orphans = Mutex(OrphanJobs())
    private let exited = DispatchSemaphore(value: 0)

    /// Creates a loop and starts its thread; returns once the thread is up.
    public convenience init(name: String) {
        self.init(name: name, isShared: false)
    }

    private init(name: String, isShared: Bool) {
        self.name = name
        self.isShared = isShared
        let context = g_main_context_new()!
        self.context = context
        self.loop = g_main_loop_new(context, 0)!
        let started = DispatchSemaphore(value: 0)
        NamedThread.start(name) { [self] in
            threadMain(started: started)
        }
        started.wait()
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// True when called on this loop's thread (while it runs).
    public var isCurrentThread: Bool {
        state.withLock { state in
            guard let thread = state.loopThread else { return false }
            return pthread_equal(thread, pthread_self()) != 0
        }
    }

    /// True once `stop()` has finished quitting the loop.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    // MARK: - Handing work to the loop

    /// Runs `work` soon on the loop thread, after work posted earlier. Never runs it inline,
    /// even when called on the loop thread. Work posted after `stop()` is dropped.
    public func post(_ work: @escaping @Sendable () -> Void) {
        if !attachJob(work, dropped: nil) {
            Log.debug("mainloop", "\(name): dropped work posted after stop()")
        }
    }

    /// Runs `work` on the loop thread and waits for its result. Runs inline when already on the
    /// loop thread (so nested calls cannot deadlock). On a stopped loop the work runs on the
    /// calling thread, since no loop thread can race with it any more.
    ///
    /// Blocks the calling thread, so it is not public: no code outside this module (`stop()` uses
    /// it) can park a thread of the cooperative pool with it; the compiler holds that. Tests reach
    /// it with `@testable import MainLoop`. Everyone else uses `run` or `MainLoopActor`.
    func sync<T: Sendable>(_ work: @Sendable () throws -> T) rethrows -> T {
        try syncHelper(work, rescue: { throw $0 })
    }

    /// Runs `work` on the loop thread and returns its result to the awaiting task.
    /// Throws `MainLoopStoppedError` if the loop stopped before the work ran.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let loopName = name
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            let accepted = attachJob({
                continuation.resume(with: Result(catching: work))
            }, dropped: {
                continuation.resume(throwing: MainLoopStoppedError(loopName: loopName))
            })
            if !accepted { continuation.resume(throwing: MainLoopStoppedError(loopName: loopName)) }
        }
    }

    /// Runs `work` on the loop thread after `seconds` (millisecond resolution), then every
    /// `seconds` if `repeating`. Returns a handle to cancel it. On a stopped loop the returned
    /// timer is already cancelled.
    @discardableResult
    public func schedule(after seconds: Double, repeating: Bool = false,
                         _ work: @escaping @Sendable () -> Void) -> LoopTimer {
        let milliseconds = seconds.isFinite ? UInt32(min(max(seconds * 1000, 0), Double(UInt32.max)).rounded()) : UInt32.max
        let box = TimerWork(work: work, repeating: repeating)
        return state.withLock { state in
            guard !state.stopped else { return LoopTimer() }
            let source = g_timeout_source_new(milliseconds)!
            g_source_set_callback(source, timerDispatch, Unmanaged.passRetained(box).toOpaque(), timerDestroy)
            g_source_attach(source, context)
            return LoopTimer(source: source)
        }
    }

    /// Registers `handler` to run on the loop thread during `stop()`, before the loop quits.
    /// Libraries use it to tear down C state bound to this loop. Returns false (and drops the
    /// handler) once stopping began: the caller must then tear down by itself.
    @discardableResult
    public func addStopHandler(_ handler: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard !state.stopping else { return false }
            state.stopHandlers.append(handler)
            return true
        }
    }

    /// Runs the stop handlers on the loop, quits it and joins its thread. Work still queued is
    /// dropped (waiters of `run` get `MainLoopStoppedError`). Idempotent. Not for `.shared`,
    /// and not from the loop thread itself (both are ignored with a warning).
    public func stop() {
        if isShared {
            Log.warning("mainloop", "stop() called on MainLoop.shared; ignored")
            return
        }
        if isCurrentThread {
            Log.warning("mainloop", "\(name): stop() called on the loop thread; ignored")
            return
        }
        let handlers: [@Sendable () -> Void]? = state.withLock { state in
            guard !state.stopping else { return nil }
            state.stopping = true
            defer { state.stopHandlers = [] }
            return state.stopHandlers
        }
        guard let handlers else { return }

        sync {
            for handler in handlers { handler() }
        }
        state.withLock { $0.stopped = true }
        attach(LoopJob(work: { [self] in g_main_loop_quit(loop) }, dropped: nil, registry: pending))
        exited.wait()
        for job in pending.removeAll() {
            job.destroySource()
        }
    }

    // MARK: - Internals

    private func threadMain(started: DispatchSemaphore) {
        g_main_context_push_thread_default(context)
        state.withLock { $0.loopThread = pthread_self() }
        started.signal()
        g_main_loop_run(loop)
        state.withLock { $0.loopThread = nil }
        g_main_context_pop_thread_default(context)
        exited.signal()
    }

    /// Attaches a job unless the loop is stopped; returns whether it was accepted.
    func attachJob(_ work: @escaping @Sendable () -> Void, dropped: (@Sendable () -> Void)?) -> Bool {
        let job = LoopJob(work: work, dropped: dropped, registry: pending)
        return state.withLock { state in
            guard !state.stopped else { return false }
            attach(job)
            return true
        }
    }

    private func attach(_ job: LoopJob) {
        let source = g_idle_source_new()!
        g_source_set_priority(source, 0) // G_PRIORITY_DEFAULT, like I/O: posted work is not starved
        job.setSource(source)
        pending.insert(job)
        g_source_set_callback(source, loopJobDispatch, Unmanaged.passRetained(job).toOpaque(), loopJobDestroy)
        g_source_attach(source, context)
        g_source_unref(source)
    }
}

/// The mutable state of a `MainLoop`, under its mutex.
private struct LoopState {
    var loopThread: pthread_t?
    var stopping = false
    var stopped = false
    var stopHandlers: [@Sendable () -> Void] = []
}
