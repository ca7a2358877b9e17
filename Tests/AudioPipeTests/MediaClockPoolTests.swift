import TestSupport
@testable import AudioPipe
import Foundation
import Synchronization
import Testing

/// The pool with real clock threads: a call goes to a second clock (`name-2`) when the first is
/// busy, by an injected load or by the clock's own measure of rounds that really take most of the
/// period; an extra clock's thread ends after its last call, the first one stays, and the thread
/// count returns to what it was. Nothing is timed: waits are for states, with long bounds.
@Suite struct MediaClockPoolTests {
    /// Names of this process's threads (`/proc/self/task/*/comm`).
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// Clock names to report as full (`reporting`), set by a test while it runs.
    final class BusyClocks: Sendable {
        private let names = Mutex<Set<String>>([])
        func set(_ busy: Set<String>) { names.withLock { $0 = busy } }

        /// The clock's measured load, or 1000 calls at 0.4 ms for the clocks named busy.
        func reporting(_ clock: MediaClock) -> MediaClockLoad {
            var load = clock.load
            if names.withLock({ $0.contains(clock.name) }) {
                load.calls = 1_000
                load.perCallNanoseconds = 400_000
            }
            return load
        }
    }

    /// A pool whose clocks look full when `busy` names them; extra threads end after 50 ms idle.
    static func pool(_ name: String, busy: BusyClocks, maximum: Int = 3) -> MediaClockPool {
        MediaClockPool(name: name, maximumClocks: maximum, idleLinger: 50_000_000, measure: { busy.reporting($0) })
    }

    static func wait(_ condition: () -> Bool) -> Bool { eventually(timeout: 10, interval: 0.01, condition) }

    @Test func aCallGoesToASecondClockWhenTheFirstIsBusyAndThatThreadEndsAfterItsLastCall() {
        let busy = BusyClocks()
        let pool = Self.pool("tpool-a", busy: busy)
        let threadsBefore = Self.threadNames().count
        let first = pool.clockForNewCall()
        #expect(first.name == "tpool-a" && pool.runningThreads == 0, "no thread before the first call")
        let one = first.register { _, _ in }
        #expect(pool.clockForNewCall() === first, "the first clock has room")
        busy.set(["tpool-a"])
        let second = pool.clockForNewCall()
        #expect(second.name == "tpool-a-2")
        let ticked = ThreadNames()
        let two = second.register { _, _ in ticked.recordCurrent() }
        #expect(Self.wait { !ticked.names.isEmpty })
        #expect(ticked.names == ["tpool-a-2"], "the call ticks on the second clock's thread")
        // A clock thread names itself once it runs: wait for the name rather than read it at once.
        #expect(Self.wait { Self.threadNames().contains("tpool-a") && Self.threadNames().contains("tpool-a-2") })
        #expect(pool.runningThreads == 2)
        #expect(pool.clockForNewCall() === second, "the second clock has room")

        second.unregister(two)
        #expect(Self.wait { !second.hasThread }, "the extra clock's thread ends once idle for its linger")
        #expect(Self.wait { !Self.threadNames().contains("tpool-a-2") })
        first.unregister(one)
        #expect(first.hasThread, "the first clock's thread stays")
        #expect(pool.runningThreads == 1 && pool.allClocks.count == 2)
        #expect(Self.wait { Self.threadNames().count <= threadsBefore + 1 }, "back to the idle count plus the first clock")

        let again = pool.clockForNewCall()
        #expect(again === second, "the first is still busy: the second clock is reused")
        let three = again.register { _, _ in }
        #expect(Self.wait { again.hasThread && Self.threadNames().contains("tpool-a-2") }, "its thread starts again")
        again.unregister(three)
        busy.set([])
        #expect(pool.clockForNewCall() === first, "calls pack onto the first clock when it has room")
        #expect(Self.wait { !again.hasThread })
    }

    @Test func noMoreClocksThanTheMaximum() {
        let busy = BusyClocks()
        busy.set(["tpool-c", "tpool-c-2"])
        let pool = Self.pool("tpool-c", busy: busy, maximum: 2)
        let clocks = (0..<4).map { _ in pool.clockForNewCall() }
        #expect(clocks.map(\.name) == ["tpool-c", "tpool-c-2", "tpool-c", "tpool-c"],
                "both full at the maximum: the least loaded (equal: the first)")
        #expect(pool.allClocks.count == 2)
    }

    /// No injection: a call whose tick sleeps 15 ms of each 20 ms period makes the clock's own
    /// measure say it is busy (a lower bound: a sleep never takes less), and the next call goes to a
    /// second clock.
    @Test func aClockBusyByItsOwnMeasureSendsTheNextCallToASecondClock() {
        let pool = MediaClockPool(name: "tpool-b", maximumClocks: 2, idleLinger: 50_000_000)
        let first = pool.clockForNewCall()
        let heavy = first.register { _, _ in usleep(15_000) }
        #expect(Self.wait { first.load.perCallNanoseconds != nil }, "a periodic round was measured")
        #expect((first.load.perCallNanoseconds ?? 0) >= 15_000_000)
        let next = pool.clockForNewCall()
        #expect(next !== first && next.name == "tpool-b-2")
        first.unregister(heavy)
    }

    /// The names of the threads `recordCurrent` ran on.
    final class ThreadNames: Sendable {
        private let recorded = Mutex<Set<String>>([])
        func recordCurrent() {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
            recorded.withLock { _ = $0.insert(name.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        var names: Set<String> { recorded.withLock { $0 } }
    }
}
