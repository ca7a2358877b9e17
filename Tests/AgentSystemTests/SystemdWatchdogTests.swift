import TestSupport
@testable import AgentCore
import Foundation
import MainLoop
import Testing

/// Counts pings from a `WatchdogPinger`.
private final class PingCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }

    /// Waits (at most `timeout` s) until at least `target` pings arrived.
    func waitFor(_ target: Int, timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if count >= target { return true }
            usleep(10_000)
        }
        return false
    }
}

/// A gate a probe can be held at.
private final class ProbeGate: @unchecked Sendable {
    private let lock = NSLock()
    private var open = true
    func set(open: Bool) { lock.withLock { self.open = open } }
    var isOpen: Bool { lock.withLock { open } }
}

/// WATCHDOG=1 is sent only while the main loop ticks and the probe (the agent actor) answers.
@Suite(.serialized) struct SystemdWatchdogTests {
    @Test func pingsRepeatWhileHealthyAndStopWhenTheLoopIsStuck() async throws {
        try await onThread {
            let loop = MainLoop(name: "watchdog-test")
            defer { loop.stop() }
            let pings = PingCounter()
            let pinger = WatchdogPinger(interval: 0.02, loop: loop, probe: {}, send: { pings.add() })
            defer { pinger.stop() }
            #expect(pings.waitFor(5), "pings repeat while the loop runs")

            // Block the loop thread; once it is blocked, at most the probe already in flight may still ping.
            let blocked = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            loop.post {
                blocked.signal()
                release.wait()
            }
            blocked.wait()
            let atBlock = pings.count
            Thread.sleep(forTimeInterval: 0.5)  // 25 intervals
            #expect(pings.count <= atBlock + 1, "a stuck main loop stops the pings")
            release.signal()
            #expect(pings.waitFor(pings.count + 3), "pings resume once the loop runs again")
        }
    }

    @Test func aProbeThatNeverReturnsStopsThePings() async throws {
        try await onThread {
            let loop = MainLoop(name: "watchdog-probe")
            defer { loop.stop() }
            let pings = PingCounter()
            let gate = ProbeGate()
            let pinger = WatchdogPinger(interval: 0.02, loop: loop, probe: {
                while !gate.isOpen { try? await Task.sleep(for: .milliseconds(5)) }
            }, send: { pings.add() })
            defer { pinger.stop() }
            #expect(pings.waitFor(3))
            gate.set(open: false)
            Thread.sleep(forTimeInterval: 0.1)
            let atStall = pings.count
            Thread.sleep(forTimeInterval: 0.5)
            #expect(pings.count == atStall, "no pings while the agent does not answer")
            gate.set(open: true)
            #expect(pings.waitFor(atStall + 3), "pings resume once it answers")
        }
    }

    @Test func stopEndsThePings() async throws {
        try await onThread {
            let loop = MainLoop(name: "watchdog-stop")
            defer { loop.stop() }
            let pings = PingCounter()
            let pinger = WatchdogPinger(interval: 0.02, loop: loop, probe: {}, send: { pings.add() })
            #expect(pings.waitFor(2))
            pinger.stop()
            Thread.sleep(forTimeInterval: 0.1)
            let atStop = pings.count
            Thread.sleep(forTimeInterval: 0.3)
            #expect(pings.count == atStop)
        }
    }

    @Test func noWatchdogConfiguredMeansNoPinger() {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/notify"])
        #expect(WatchdogPinger(notifier: notifier, probe: {}) == nil)
    }
}
