import SystemSupport
import CNice
import Synchronization

/// The GLib main context that holds the ICE sockets of calls whose media flows, iterated once per
/// tick, without blocking, by the media clock thread (`drain`, right before the clock ticks the
/// calls). A received datagram then costs libnice's `recvmsg` and its `recvmsg` → EAGAIN, plus
/// one `poll` per tick shared by every call: no wakeup of the loop thread, no job, no eventfd.
///
/// libnice reads a socket until EAGAIN in the source's dispatch and answers STUN there itself
/// (consent, peer checks), under its agent lock, whatever the thread; its timers (checks, consent
/// requests) stay on the agent's own context, the loop. The receive callback runs on the thread
/// that dispatches (`niceReceiveOnMediaClock`), and so do the agent's signals (which
/// `NiceAgentCallbacks` hop to the loop).
///
/// GLib (2.74 `g_main_dispatch`) removes a source's fds before each dispatch and adds them back
/// after, each change signalling the context's wakeup eventfd (2 writes, then a read and one
/// more poll per dispatch), unless the source may recurse. Every socket source that delivers a
/// datagram is therefore flagged `G_SOURCE_CAN_RECURSE` from inside its first dispatch
/// (`allowRecursionOfCurrentSource`, via the documented `g_main_current_source`): no guessing of
/// source ids. Recursion cannot happen here: nothing iterates this context from a callback.
///
/// Runs on: `drain` on the media clock thread only (one per `MediaClock`). `excludingDrain` on any
/// other thread (the loop, when an agent moves its sockets back or closes) waits for a drain in
/// progress, so no receive callback of that agent is running once it has moved the sockets. A
/// class: it owns the context.
final class MediaReceiveContext: @unchecked Sendable {  // unchecked: a GMainContext* (thread-safe GLib object), iterated under `draining`
    /// The `GMainContext*` the moved sockets are attached to.
    let context: OpaquePointer
    /// Held while the context is iterated (and by `excludingDrain`).
    private let draining = Mutex<Int>(0)
    /// When the current and the previous drain started (monotonic seconds, as bit patterns).
    private let currentDrainStart = Atomic<UInt64>(0)
    private let previousDrainStartBits = Atomic<UInt64>(0)

    init() {
        context = g_main_context_new()
    }

    deinit {
        g_main_context_unref(context)
    }

    /// One non-blocking iteration (media clock thread): one `poll` over every moved socket, then
    /// libnice reads each ready one until EAGAIN and calls the receive callbacks on this thread.
    func drain() {
        draining.withLock { count in
            count &+= 1
            previousDrainStartBits.store(currentDrainStart.load(ordering: .relaxed), ordering: .relaxed)
            currentDrainStart.store(MonotonicTime.now().bitPattern, ordering: .relaxed)
            _ = g_main_context_iteration(context, 0)
        }
    }

    /// When the drain before the one in progress started: a datagram read now came in after it.
    var previousDrainStart: Double { Double(bitPattern: previousDrainStartBits.load(ordering: .relaxed)) }

    /// Iterations so far (for tests).
    var drainCount: Int { draining.withLock { $0 } }

    /// Runs `body` while no iteration is in progress (and none starts): what moving sockets off
    /// this context needs before the receive target may be released.
    func excludingDrain<T>(_ body: () throws -> T) rethrows -> T {
        try draining.withLock { _ in try body() }
    }

    /// Marks the source being dispatched on this thread `G_SOURCE_CAN_RECURSE` (see the type's
    /// comment); called from the receive callback, once per datagram, cheap after the first.
    static func allowRecursionOfCurrentSource() {
        guard let source = g_main_current_source(), g_source_get_can_recurse(source) == 0 else { return }
        g_source_set_can_recurse(source, 1)
    }
}

/// Where a call's datagrams go once its ICE sockets are on a `MediaReceiveContext`: a closure run
/// on the media clock thread with libnice's receive buffer (valid only during the call). libnice
/// holds a retained reference while the sockets are there (`NiceMediaRoute`).
///
/// Runs on: created on any thread; `deliver` runs on the media clock thread only.
final class MediaReceiveTarget: Sendable {
    /// Handles one datagram (not STUN) on the media clock thread.
    let deliver: @Sendable (UnsafeRawBufferPointer) -> Void

    init(_ deliver: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        self.deliver = deliver
    }
}
