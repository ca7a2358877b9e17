import FoundationEssentials
import MainLoop
import Synchronization

/// Sends systemd's `WATCHDOG=1` only while the daemon is really alive.
///
/// A timer on the GLib main loop (the thread that drives libwebsockets and libnice) fires every
/// `interval` seconds; each tick then awaits `probe` (the daemon passes a hop onto the `Agent`
/// actor) and only when that returns is `WATCHDOG=1` sent. So a stuck main loop (no tick), a
/// blocked agent actor or a starved Swift task pool (the probe never completes) all stop the
/// pings, and systemd restarts the service after `WatchdogSec`. At most one probe is in flight:
/// ticks that find the previous probe still waiting are skipped instead of piling up.
public final class WatchdogPinger: Sendable {
    /// Seconds between pings (half of `WATCHDOG_USEC` under systemd).
    public let interval: Double
    private let send: @Sendable () -> Void
    private let probe: @Sendable () async -> Void
    /// Written by `init`/`stop` (any thread) and by ticks (loop thread) and probes (a task).
    private let state = Mutex((timer: LoopTimer?.none, probeInFlight: false, stopped: false))

    /// Starts pinging through `notifier` at its `watchdogInterval`; returns `nil` when systemd
    /// configured no watchdog for this process.
    public convenience init?(notifier: SystemdNotifier, loop: MainLoop = .shared,
                             probe: @escaping @Sendable () async -> Void) {
        guard let interval = notifier.watchdogInterval else { return nil }
        self.init(interval: interval, loop: loop, probe: probe) { notifier.watchdog() }
    }

    /// Starts a pinger that calls `send` every `interval` seconds while `loop` runs and `probe` returns.
    public init(interval: Double, loop: MainLoop, probe: @escaping @Sendable () async -> Void,
                send: @escaping @Sendable () -> Void) {
        self.interval = interval
        self.probe = probe
        self.send = send
        let timer = loop.schedule(after: interval, repeating: true) { [weak self] in self?.tick() }
        state.withLock { $0.timer = timer }
    }

    deinit { state.withLock { $0.timer }?.cancel() }

    /// Stops the pings (at shutdown, before `STOPPING=1`).
    public func stop() {
        let timer = state.withLock { state -> LoopTimer? in
            state.stopped = true
            return state.timer
        }
        timer?.cancel()
    }

    /// Runs on the main loop thread.
    private func tick() {
        let start = state.withLock { state -> Bool in
            guard !state.stopped, !state.probeInFlight else { return false }
            state.probeInFlight = true
            return true
        }
        guard start else { return }
        Task { [self] in
            await probe()
            let alive = state.withLock { state -> Bool in
                state.probeInFlight = false
                return !state.stopped
            }
            if alive { send() }
        }
    }
}
