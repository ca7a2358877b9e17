import CGLib
import Synchronization

/// A one-shot or repeating timer on a `MainLoop` (a GLib timeout source on the loop's context).
///
/// Runs on: any thread. `cancel()` is thread-safe and idempotent. Once it returns, the work does
/// not start again; when called on the loop thread, the work is guaranteed not to run afterwards.
public final class LoopTimer: Sendable {
    private let state: Mutex<TimerState>

    /// A timer that never fires (used when the loop is already stopped).
    init() { state = Mutex(TimerState(source: nil, cancelled: true)) }

    /// Takes ownership of one reference to `source`, which must already be attached.
    init(source: UnsafeMutablePointer<GSource>) {
        state = Mutex(TimerState(source: SourcePointer(source), cancelled: false))
    }

    /// Whether `cancel()` was called (or the timer was created on a stopped loop).
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Stops the timer. Safe from any thread, any number of times.
    public func cancel() {
        state.withLock { timer in
            guard !timer.cancelled else { return }
            timer.cancelled = true
            if let source = timer.source?.pointer { g_source_destroy(source) }
        }
    }

    deinit {
        state.withLock { timer in
            if let source = timer.source?.pointer { g_source_unref(source) }
        }
    }
}

private struct TimerState {
    var source: SourcePointer?
    var cancelled: Bool
}

/// The closure of a timer, owned by its GLib source.
final class TimerWork: Sendable {
    let work: @Sendable () -> Void
    let repeating: Bool

    init(work: @escaping @Sendable () -> Void, repeating: Bool) {
        self.work = work
        self.repeating = repeating
    }
}

/// GSourceFunc of a timer: runs the work and keeps the source only if it repeats.
let timerDispatch: @convention(c) (gpointer?) -> gboolean = { data in
    guard let data else { return 0 }
    let timer = Unmanaged<TimerWork>.fromOpaque(data).takeUnretainedValue()
    timer.work()
    return timer.repeating ? 1 : 0
}

/// GDestroyNotify of a timer: releases the closure box.
let timerDestroy: @convention(c) (gpointer?) -> Void = { data in
    guard let data else { return }
    Unmanaged<TimerWork>.fromOpaque(data).release()
}
