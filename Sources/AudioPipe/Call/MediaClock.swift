import CGLib
import FoundationEssentials
import MainLoop
#if canImport(Glibc)
import Glibc
#endif

/// A 20 ms media clock: one thread (`wcs-media`, `wcs-media-2` … see `MediaClockPool`, which
/// makes the clocks and places each call on one) ticks every call placed on it, instead of one
/// audio thread per call. Deadlines are absolute `CLOCK_MONOTONIC` times
/// (start + n x period, no drift); the thread sleeps on a condition variable until the deadline,
/// so a newly registered call is woken at once and gets its first tick (its first frame goes out
/// right after DTLS) without waiting for the next shared deadline.
///
/// The lock is GLib's `GMutex`/`GCond`, not pthread's, so that a sleep between ticks costs one
/// syscall (the timed futex wait): glibc's `pthread_cond_timedwait` re-takes the mutex marked
/// contended, so the unlock after every sleep made a second futex syscall (FUTEX_WAKE), while
/// `g_cond_wait_until` re-takes it with a plain lock. `g_cond_broadcast` always makes a syscall,
/// so the clock broadcasts only when someone waits: `clockSleeping` (the clock thread, for
/// `register` and `requestPlayout`) or `unregisterWaiters` (for `unregister`).
///
/// A call may also ask for one playout of its own at once (`requestPlayout`): its first packet
/// then plays when it arrives instead of up to one period later; the call stays on the shared
/// cadence afterwards (NetEQ starts a stream the same way: the first frame out at once, the
/// delay grown afterwards by stretching).
///
/// Right before each periodic round the clock drains `receiveContext` once, without blocking:
/// the ICE sockets of calls whose media flows live there, so their datagrams are read (and STUN
/// answered) on this thread, batched per tick, without waking the loop thread.
///
/// A round that runs late is followed by the next ones back to back until the clock is caught
/// up; more than `maximumCatchUp` periods behind, the missed periods are skipped and reported to
/// each tick as `skipped`. With no call registered the thread waits without a timeout, or, with an
/// `idleLinger`, ends once it has had no call for that long (a later `register` starts it again).
///
/// Each periodic round (drain and ticks) is timed for the pool's placement (`MediaClockMeter`,
/// read through `load`).
///
/// Runs on: the clock thread calls every tick; `register` and `unregister` are safe from any
/// thread. A class because it owns the thread and the GLib mutex and condition variable.
final class MediaClock: @unchecked Sendable {  // @unchecked: state under `mutex`, a GMutex
    /// What a registered call's tick is called with.
    typealias Tick = (_ now: Double, _ skipped: Int) -> Void
    /// What a registered call's extra playout (`requestPlayout`) is called with.
    typealias Playout = (_ now: Double) -> Void

    /// One registered call.
    final class Registration: @unchecked Sendable {  // @unchecked: fields under the clock's mutex
        fileprivate var tick: Tick?
        fileprivate var playout: Playout?
        fileprivate var needsFirstTick = true
        fileprivate var needsPlayout = false
        fileprivate init(tick: @escaping Tick, playout: Playout?) {
            self.tick = tick
            self.playout = playout
        }
    }

    /// The period in nanoseconds (20 ms).
    let periodNanoseconds: Int
    /// Periods the clock may fall behind before it skips instead of catching up.
    let maximumCatchUp: Int
    /// The context this clock's thread drains before each periodic round.
    let receiveContext = MediaReceiveContext()
    /// The thread's name.
    let name: String
    /// Nanoseconds without a call after which the thread ends; nil: it stays.
    private let idleLinger: Int?
    private let mutex = UnsafeMutablePointer<GMutex>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<GCond>.allocate(capacity: 1)

    // Under `mutex`.
    private var registrations: [Registration] = []
    private var running: Registration?
    /// The thread is draining `receiveContext` (mutex released).
    private var draining = false
    private var threadStarted = false
    private var clockThread: pthread_t?
    /// The clock thread waits on `condition` (for a call, a playout or its deadline).
    private var clockSleeping = false
    /// `unregister` calls waiting on `condition` for a tick or a drain to end.
    private var unregisterWaiters = 0
    private var meter: MediaClockMeter

    /// A clock whose thread `name` starts with the first `register`; with `idleLinger` (ns) the
    /// thread ends after that long without a call.
    init(name: String, periodNanoseconds: Int = 20_000_000, maximumCatchUp: Int = 10, idleLinger: Int? = nil) {
        self.name = name
        self.idleLinger = idleLinger
        meter = MediaClockMeter(periodNanoseconds: periodNanoseconds)
        self.periodNanoseconds = periodNanoseconds
        self.maximumCatchUp = maximumCatchUp
        g_mutex_init(mutex)
        g_cond_init(condition)
    }

    /// Adds a call: `tick` runs on the clock thread at once and then every period, until
    /// `unregister`; `playout` runs there once per `requestPlayout`. Starts the thread on first use.
    func register(_ tick: @escaping Tick, playout: Playout? = nil) -> Registration {
        let registration = Registration(tick: tick, playout: playout)
        locked {
            registrations.append(registration)
            if !threadStarted {
                threadStarted = true
                NamedThread.start(name, stackSize: 1 << 20) { [self] in run() }
            }
            wakeClock()
        }
        return registration
    }

    /// Removes a call and waits for its tick in progress to finish (at most one tick), so no tick
    /// runs once this returns; when it removes the last call it also waits for a drain of
    /// `receiveContext` in progress, so a clock without calls reads no socket from then on. From a
    /// tick itself it only removes the call. Idempotent.
    func unregister(_ registration: Registration) {
        locked {
            registrations.removeAll { $0 === registration }
            let onClockThread = clockThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            while (running === registration || (draining && registrations.isEmpty)) && !onClockThread {
                unregisterWaiters += 1
                g_cond_wait(condition, mutex)
                unregisterWaiters -= 1
            }
            registration.tick = nil  // releases what the closures captured
            registration.playout = nil
        }
    }

    /// Runs `registration`'s `playout` once on the clock thread as soon as it is free, between
    /// the periodic ticks (which keep their cadence). Safe from any thread; does nothing for a
    /// call that is not registered (any more) or has no `playout`. Requests made before the
    /// call's playout ran are merged into one.
    func requestPlayout(_ registration: Registration) {
        locked {
            guard registration.playout != nil, registrations.contains(where: { $0 === registration }) else { return }
            registration.needsPlayout = true
            wakeClock()
        }
    }

    /// Calls registered (for tests and the scaling figures).
    var registeredCount: Int { locked { registrations.count } }

    /// What the rounds measured, and the calls registered now.
    var load: MediaClockLoad {
        locked {
            MediaClockLoad(calls: registrations.count, perCallNanoseconds: meter.perCallNanoseconds,
                           busyFraction: meter.busyFraction, periodNanoseconds: periodNanoseconds)
        }
    }

    /// Whether the clock's thread runs (it starts with a call; with an `idleLinger` it ends).
    var hasThread: Bool { locked { threadStarted } }

    private func run() {
        locked { clockThread = pthread_self() }
        var deadline = Self.now() + periodNanoseconds
        var idleSince: Int?
        g_mutex_lock(mutex)
        while true {
            if registrations.isEmpty {
                let since = idleSince ?? Self.now()
                if idleSince == nil { meter.idle() }
                idleSince = since
                if !waitForACall(idleSince: since) {
                    Log.info("audio", "media clock \(name) ended (no call for \((idleLinger ?? 0) / 1_000_000) ms)")
                    threadStarted = false
                    clockThread = nil
                    g_mutex_unlock(mutex)
                    return
                }
                deadline = Self.now() + periodNanoseconds  // the first ticks run at once, below
                continue
            }
            idleSince = nil
            let fresh = registrations.filter(\.needsFirstTick)
            if !fresh.isEmpty {
                for registration in fresh { registration.needsFirstTick = false }
                runRound(fresh, .tick(skipped: 0), now: Self.now())
                continue
            }
            if registrations.contains(where: \.needsPlayout) {
                let asked = registrations.filter(\.needsPlayout)
                for registration in asked { registration.needsPlayout = false }
                runRound(asked, .playout, now: Self.now())
                continue
            }
            let now = Self.now()
            let behind = now - deadline
            if behind < 0 {
                sleep(until: deadline)
                continue
            }
            var skipped = 0
            if behind > maximumCatchUp * periodNanoseconds {
                skipped = behind / periodNanoseconds
                deadline += skipped * periodNanoseconds
                Log.notice("audio", "\(name): clock \(behind / 1_000_000) ms behind; skipping \(skipped) frames")
            }
            draining = true
            g_mutex_unlock(mutex)
            receiveContext.drain()
            g_mutex_lock(mutex)
            draining = false
            wakeUnregisterWaiters()
            let calls = registrations.count
            runRound(registrations, .tick(skipped: skipped), now: now)
            meter.record(roundNanoseconds: Self.now() - now, calls: calls)
            deadline += periodNanoseconds
        }
    }

    /// Waits (mutex held) for a call or another wake-up; false when the thread should end: it has
    /// had no call for `idleLinger` since `idleSince`.
    private func waitForACall(idleSince: Int) -> Bool {
        guard let idleLinger else {
            sleep(until: nil)
            return true
        }
        let end = idleSince + idleLinger
        if Self.now() >= end { return false }
        sleep(until: end)
        return true
    }

    /// Waits on `condition` (mutex held) until `deadline` (`CLOCK_MONOTONIC` ns, rounded up to
    /// GLib's microseconds; nil: no limit) or a `wakeClock`. One futex syscall per sleep.
    private func sleep(until deadline: Int?) {
        clockSleeping = true
        if let deadline {
            _ = g_cond_wait_until(condition, mutex, gint64((deadline + 999) / 1_000))
        } else {
            g_cond_wait(condition, mutex)
        }
        clockSleeping = false
    }

    /// Wakes the clock thread if it sleeps (mutex held), so it looks at the calls again now.
    private func wakeClock() {
        if clockSleeping { g_cond_broadcast(condition) }
    }

    /// Wakes the `unregister` calls waiting for a tick or drain to end (mutex held).
    private func wakeUnregisterWaiters() {
        if unregisterWaiters > 0 { g_cond_broadcast(condition) }
    }

    /// What a round runs for each of its registrations.
    private enum Work {
        case tick(skipped: Int)
        case playout
    }

    /// Runs `work` for each registration of `round` still registered (mutex held on entry and
    /// exit, released around each call).
    private func runRound(_ round: [Registration], _ work: Work, now: Int) {
        let seconds = Double(now) / 1_000_000_000
        for registration in round where registrations.contains(where: { $0 === registration }) {
            let tick = registration.tick
            let playout = registration.playout
            running = registration
            g_mutex_unlock(mutex)
            switch work {
            case .tick(let skipped): tick?(seconds, skipped)
            case .playout: playout?(seconds)
            }
            g_mutex_lock(mutex)
            running = nil
            wakeUnregisterWaiters()
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        g_mutex_lock(mutex)
        defer { g_mutex_unlock(mutex) }
        return body()
    }

    private static func now() -> Int { MonotonicTime.nanoseconds() }
}
