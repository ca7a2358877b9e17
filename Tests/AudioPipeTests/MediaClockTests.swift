import TestSupport
@testable import AudioPipe
import Foundation
import Testing

/// The shared media clock: one thread ticks every call, a new call is ticked at once, and
/// unregistering waits for that call's tick in progress. No timing is asserted beyond "happens".
@Suite struct MediaClockTests {
    /// Counts ticks and the threads they ran on.
    final class Ticks: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        private var threads = Set<UInt>()
        private var inside = false
        private var overlapped = false

        func record(hold: Double = 0) {
            lock.withLock {
                count += 1
                threads.insert(UInt(pthread_self()))
                inside = true
            }
            if hold > 0 { Thread.sleep(forTimeInterval: hold) }
            lock.withLock { inside = false }
        }
        var total: Int { lock.withLock { count } }
        var threadIDs: Set<UInt> { lock.withLock { threads } }
        var isInside: Bool { lock.withLock { inside } }
    }

    static func wait(_ condition: () -> Bool) -> Bool { eventually(timeout: 5, interval: 0.01, condition) }

    @Test func oneThreadTicksEveryCallAndANewCallIsTickedAtOnce() {
        let clock = MediaClock(name: "test-media-1", periodNanoseconds: 20_000_000)
        let first = Ticks()
        let second = Ticks()
        let a = clock.register { _, _ in first.record() }
        #expect(Self.wait { first.total >= 3 })
        let b = clock.register { _, _ in second.record() }
        #expect(Self.wait { second.total >= 3 })
        #expect(clock.registeredCount == 2)
        clock.unregister(a)
        clock.unregister(b)
        #expect(first.threadIDs.count == 1 && first.threadIDs == second.threadIDs, "both calls ticked on one thread")
        let after = (first.total, second.total)
        Thread.sleep(forTimeInterval: 0.1)
        #expect((first.total, second.total) == after, "no tick after unregister")
        #expect(clock.registeredCount == 0)
    }

    @Test func unregisterWaitsForTheTickInProgress() {
        let clock = MediaClock(name: "test-media-2", periodNanoseconds: 20_000_000)
        let slow = Ticks()
        let registration = clock.register { _, _ in slow.record(hold: 0.1) }
        #expect(Self.wait { slow.isInside })
        clock.unregister(registration)
        #expect(!slow.isInside, "unregister returned while the tick still ran")
        let count = slow.total
        Thread.sleep(forTimeInterval: 0.15)
        #expect(slow.total == count)
    }

    @Test func aTickMayUnregisterItself() {
        let clock = MediaClock(name: "test-media-3", periodNanoseconds: 20_000_000)
        let ticks = Ticks()
        let box = RegistrationBox()
        box.registration = clock.register { _, _ in
            ticks.record()
            if ticks.total == 2, let own = box.registration { clock.unregister(own) }
        }
        #expect(Self.wait { ticks.total >= 2 })
        Thread.sleep(forTimeInterval: 0.1)
        #expect(ticks.total == 2)
    }

    @Test func aRequestedPlayoutRunsAtOnceBetweenTicksOnTheClockThread() {
        let clock = MediaClock(name: "test-media-4", periodNanoseconds: 3_600_000_000_000)  // one tick an hour
        let ticks = Ticks()
        let playouts = Ticks()
        let registration = clock.register({ _, _ in ticks.record() }, playout: { _ in playouts.record() })
        #expect(Self.wait { ticks.total == 1 }, "the first tick runs at once")
        clock.requestPlayout(registration)
        #expect(Self.wait { playouts.total == 1 }, "the playout ran without waiting for the next tick")
        clock.requestPlayout(registration)
        #expect(Self.wait { playouts.total == 2 })
        #expect(ticks.total == 1, "a playout is not a tick")
        #expect(playouts.threadIDs == ticks.threadIDs, "on the clock thread")
        clock.unregister(registration)
        clock.requestPlayout(registration)
        Thread.sleep(forTimeInterval: 0.1)
        #expect(playouts.total == 2, "nothing runs for an unregistered call")
    }

    final class RegistrationBox: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: MediaClock.Registration?
        var registration: MediaClock.Registration? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }
}
