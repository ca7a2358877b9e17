@testable import AudioPipe
import Foundation
import Testing

/// Every sleep of the media clock's thread ends at once for a new call: while it waits for its
/// next deadline, while it waits for a call without an end, and while it lingers idle. The clock
/// ticks once an hour here, so a tick that happens came from the wake-up, not from a deadline
/// (measured by state, not by time).
@Suite struct MediaClockWakeTests {
    typealias Ticks = MediaClockTests.Ticks
    static let hour = 3_600_000_000_000

    @Test func aCallRegisteredWhileTheClockSleepsToItsDeadlineIsTickedAtOnce() {
        let clock = MediaClock(name: "test-wake-1", periodNanoseconds: Self.hour)
        let first = Ticks()
        let second = Ticks()
        let a = clock.register { _, _ in first.record() }
        #expect(MediaClockTests.wait { first.total == 1 }, "the first tick runs at once")
        Thread.sleep(forTimeInterval: 0.05)  // the clock thread is asleep until its deadline
        let b = clock.register { _, _ in second.record() }
        #expect(MediaClockTests.wait { second.total == 1 }, "woken for the new call")
        #expect(first.total == 1, "no periodic round ran: the tick came from the wake-up")
        clock.unregister(a)
        clock.unregister(b)
    }

    @Test func aCallRegisteredWhileTheClockWaitsForOneIsTickedAtOnce() {
        let clock = MediaClock(name: "test-wake-2", periodNanoseconds: Self.hour)
        let first = Ticks()
        let second = Ticks()
        let a = clock.register { _, _ in first.record() }
        #expect(MediaClockTests.wait { first.total == 1 })
        clock.unregister(a)
        Thread.sleep(forTimeInterval: 0.05)  // no call: the thread waits without a timeout
        #expect(clock.hasThread)
        let b = clock.register { _, _ in second.record() }
        #expect(MediaClockTests.wait { second.total == 1 }, "woken for the new call")
        clock.unregister(b)
    }

    @Test func aCallRegisteredWhileTheClockLingersIdleIsTickedAtOnceOnTheSameThread() {
        let clock = MediaClock(name: "test-wake-3", periodNanoseconds: Self.hour, idleLinger: Self.hour)
        let first = Ticks()
        let second = Ticks()
        let a = clock.register { _, _ in first.record() }
        #expect(MediaClockTests.wait { first.total == 1 })
        clock.unregister(a)
        Thread.sleep(forTimeInterval: 0.05)  // no call: the thread lingers (an hour)
        let b = clock.register { _, _ in second.record() }
        #expect(MediaClockTests.wait { second.total == 1 }, "woken for the new call")
        #expect(first.threadIDs == second.threadIDs, "the lingering thread ticked it")
        clock.unregister(b)
    }
}
