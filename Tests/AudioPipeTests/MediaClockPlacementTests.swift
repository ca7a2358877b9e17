@testable import AudioPipe
import Testing

/// The pool's rule for a new call (`MediaClockPlacement`), the meter that feeds it
/// (`MediaClockMeter`) and the `WCS_MEDIA_CLOCKS` override: pure values, no threads.
@Suite struct MediaClockPlacementTests {
    static let period = 20_000_000

    /// A clock with `calls` at `perCallMs` milliseconds each (nil: not measured).
    static func load(_ calls: Int, _ perCallMs: Double?) -> MediaClockLoad {
        MediaClockLoad(calls: calls, perCallNanoseconds: perCallMs.map { $0 * 1_000_000 }, busyFraction: 0,
                       periodNanoseconds: period)
    }

    static func choose(_ loads: [MediaClockLoad], maximum: Int = 2) -> MediaClockPlacement.Choice {
        MediaClockPlacement.choose(loads: loads, maximumClocks: maximum, busyLimit: 0.5)
    }

    @Test func theFirstCallStartsTheFirstClockAndCallsStayThereWhileItHasRoom() {
        #expect(Self.choose([]) == .newClock)
        #expect(Self.choose([Self.load(0, nil)]) == .existing(0), "no measurement yet: room")
        #expect(Self.choose([Self.load(10, 0.4)]) == .existing(0))
        #expect(Self.choose([Self.load(24, 0.4)]) == .existing(0), "25 calls x 0.4 ms = 50 % of 20 ms: still room")
    }

    @Test func aBusyClockMakesTheNextCallStartANewOneUpToTheMaximum() {
        #expect(Self.choose([Self.load(25, 0.4)]) == .newClock, "26 x 0.4 ms = 52 %")
        #expect(Self.choose([Self.load(25, 0.4), Self.load(3, 0.4)]) == .existing(1))
        #expect(Self.choose([Self.load(25, 0.4), Self.load(25, 0.4)], maximum: 3) == .newClock)
        #expect(Self.choose([Self.load(40, 0.4), Self.load(30, 0.4)]) == .existing(1), "all full at the maximum: the least loaded")
        #expect(Self.choose([Self.load(30, 0.4)], maximum: 1) == .existing(0), "one clock at most: it takes every call")
        #expect(Self.choose([Self.load(30, 0.4)], maximum: 0) == .existing(0), "a maximum below one counts as one")
    }

    @Test func callsPackOntoTheFirstClocksSoAnExtraOneEmpties() {
        #expect(Self.choose([Self.load(5, 0.4), Self.load(20, 0.4)]) == .existing(0))
        #expect(Self.choose([Self.load(25, 0.4), Self.load(0, nil), Self.load(4, 0.4)], maximum: 3) == .existing(1),
                "a clock whose thread ended is reused first")
    }

    @Test func anUnmeasuredClockIsProjectedAtThePoolsHighestMeasuredCost() {
        #expect(Self.choose([Self.load(25, 0.4), Self.load(0, nil)]) == .existing(1))
        #expect(Self.choose([Self.load(1, 12), Self.load(0, nil)], maximum: 3) == .newClock,
                "one call of 12 ms fits no clock at a 50 % limit")
        #expect(MediaClockPlacement.projectedBusy(Self.load(3, nil), withNewCalls: 1, fallbackPerCall: nil) == 0)
        #expect(MediaClockPlacement.projectedBusy(Self.load(3, nil), withNewCalls: 1, fallbackPerCall: 1_000_000) == 0.2)
        #expect(MediaClockPlacement.projectedBusy(Self.load(3, 2), withNewCalls: 1, fallbackPerCall: 1_000_000) == 0.4,
                "a clock's own measurement comes first")
    }

    @Test func theMeterAveragesTheCostPerCallAndReportsTheBusyShareOfEachWindow() {
        var meter = MediaClockMeter(periodNanoseconds: Self.period)
        #expect(meter.perCallNanoseconds == nil)
        meter.record(roundNanoseconds: 0, calls: 0)
        #expect(meter.perCallNanoseconds == nil, "a round without calls says nothing of a call's cost")
        meter.record(roundNanoseconds: 4_000_000, calls: 10)
        #expect(meter.perCallNanoseconds == 400_000, "the first round is taken as it is")
        meter.record(roundNanoseconds: 20_000_000, calls: 10)
        #expect(meter.perCallNanoseconds == 400_000 + 1_600_000 * MediaClockMeter.smoothing, "then smoothed")
        #expect(meter.busyFraction == 0, "no window completed yet")
        for _ in 3..<MediaClockMeter.windowRounds { meter.record(roundNanoseconds: 10_000_000, calls: 10) }
        let expected = Double(4_000_000 + 20_000_000 + 10_000_000 * (MediaClockMeter.windowRounds - 3))
            / Double(MediaClockMeter.windowRounds * Self.period)
        #expect(abs(meter.busyFraction - expected) < 1e-12)
        meter.idle()
        #expect(meter.busyFraction == 0)
        #expect(meter.perCallNanoseconds != nil, "the cost of a call is kept for the next calls")
    }

    @Test func theOverrideCapsTheClocksAndABadValueIsIgnored() {
        let cpus = MediaClockPool.maximumClocks(override: nil)
        #expect(cpus >= 1)
        #expect(MediaClockPool.maximumClocks(override: "1") == 1)
        #expect(MediaClockPool.maximumClocks(override: "6") == 6)
        for bad in ["0", "-2", "two", ""] { #expect(MediaClockPool.maximumClocks(override: bad) == cpus, "\(bad)") }
    }
}
