import Foundation
import MainLoop
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One dedicated thread that calls `tick` every `period` seconds at absolute `CLOCK_MONOTONIC`
/// deadlines (`clock_nanosleep` with `TIMER_ABSTIME`), so the 20 ms audio clock never drifts:
/// deadline n is start + n x period, whatever each tick cost.
///
/// A tick that runs late is followed by the next ones back to back until the clock is caught up.
/// When the thread falls more than `maximumCatchUp` periods behind (the process was stopped, the
/// machine suspended), the missed periods are not replayed: the next tick reports them as
/// `skipped` and the deadlines continue from the current time.
final class AudioTickThread: @unchecked Sendable {
    /// What `tick` is called with.
    typealias Tick = (_ now: Double, _ skipped: Int) -> Void

    /// The period in nanoseconds.
    let periodNanoseconds: Int
    /// Periods the clock may fall behind before it skips instead of catching up.
    let maximumCatchUp: Int
    private let name: String
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var started = false
    private var stopped = false
    private var tick: Tick?
    private var threadID: pthread_t?

    /// A thread named `name` (visible in `top -H`); nothing runs before `start(_:)`.
    init(name: String, periodNanoseconds: Int = 20_000_000, maximumCatchUp: Int = 10) {
        self.name = name
        self.periodNanoseconds = periodNanoseconds
        self.maximumCatchUp = maximumCatchUp
    }

    /// Starts the thread, which calls `tick` at once and then every period. Does nothing after a
    /// first `start(_:)` or after `stop()`, so a `stop()` that races ahead of `start(_:)` wins.
    func start(_ tick: @escaping Tick) {
        lock.lock()
        defer { lock.unlock() }
        guard !started, !stopped else { return }
        started = true
        self.tick = tick
        running.store(true, ordering: .sequentiallyConsistent)
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Stops the thread and waits for the tick in progress to finish (at most one tick). Idempotent.
    /// From the tick itself it only asks the thread to end.
    func stop() {
        lock.lock()
        let mustWait = started && !stopped && threadID.map { pthread_equal($0, pthread_self()) == 0 } ?? true
        stopped = true
        lock.unlock()
        running.store(false, ordering: .sequentiallyConsistent)
        if mustWait { finished.wait() }
    }

    private func run() {
        lock.withLock { threadID = pthread_self() }
        defer {
            lock.withLock { tick = nil }  // releases what the closure captured, on this thread
            finished.signal()
        }
        guard let tick = lock.withLock({ tick }) else { return }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        while running.load(ordering: .relaxed) {
            var current = timespec()
            clock_gettime(CLOCK_MONOTONIC, &current)
            var skipped = 0
            let behind = Self.nanoseconds(current) - Self.nanoseconds(deadline)
            if behind > maximumCatchUp * periodNanoseconds {
                skipped = behind / periodNanoseconds
                deadline = Self.advance(deadline, by: skipped * periodNanoseconds)
                Log.notice("audio", "\(name): clock \(behind / 1_000_000) ms behind; skipping \(skipped) frames")
            }
            tick(Self.seconds(current), skipped)
            deadline = Self.advance(deadline, by: periodNanoseconds)
            while running.load(ordering: .relaxed), clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
        }
    }

    private static func nanoseconds(_ time: timespec) -> Int {
        time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    private static func seconds(_ time: timespec) -> Double {
        Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
    }

    private static func advance(_ time: timespec, by nanoseconds: Int) -> timespec {
        let total = Self.nanoseconds(time) + nanoseconds
        return timespec(tv_sec: total / 1_000_000_000, tv_nsec: total % 1_000_000_000)
    }
}
