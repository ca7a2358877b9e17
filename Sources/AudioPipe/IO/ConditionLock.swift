import Glibc

/// A value guarded by a mutex, with a condition variable to wait until the value is in a wanted
/// state: `Mutex` (Synchronization) plus waiting, which `Mutex` does not offer and the audio I/O
/// threads need (a writer thread sleeps until samples are queued, `close()` until the thread is
/// done). Timed waits use `CLOCK_MONOTONIC`, so a wall-clock step cannot stretch or cut them.
///
/// Runs on: any thread; each call blocks only while another thread holds the mutex, or while it
/// waits. The state is Sendable (a value copied in and out under the mutex).
final class ConditionLock<State: Sendable>: @unchecked Sendable {  // unchecked: owns a pthread mutex and condition variable (C handles); `state` is only reached with the mutex held
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state: State

    init(_ initial: State) {
        state = initial
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` on the state with the mutex held.
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Waits until `ready(state)` holds (releasing the mutex while it waits), or at most
    /// `timeout` seconds when given, then runs `body` with the mutex held. `body` runs either
    /// way: it sees from the state whether the wait was met.
    func withLock<Result>(when ready: (State) -> Bool, timeout: Double? = nil,
                          _ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if let timeout {
            var deadline = Self.monotonicDeadline(after: timeout)
            while !ready(state) {
                if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
            }
        } else {
            while !ready(state) { pthread_cond_wait(condition, mutex) }
        }
        return try body(&state)
    }

    /// Wakes every thread waiting in `withLock(when:)`; they recheck their condition. Call it
    /// after changing what they wait for (inside or after `withLock`).
    func broadcast() {
        pthread_cond_broadcast(condition)
    }

    private static func monotonicDeadline(after seconds: Double) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let clamped = min(max(seconds, 0), 1e9)
        let whole = Int(clamped)
        var nanoseconds = Int(now.tv_nsec) + Int((clamped - Double(whole)) * 1e9)
        var secondsPart = Int(now.tv_sec) + whole
        if nanoseconds >= 1_000_000_000 {
            nanoseconds -= 1_000_000_000
            secondsPart += 1
        }
        return timespec(tv_sec: secondsPart, tv_nsec: nanoseconds)
    }
}
