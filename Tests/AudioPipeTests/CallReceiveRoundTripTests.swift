@testable import AudioPipe
import Testing

/// `CallReceiveRoundTrip`: RTCP reports read at the media clock's 20 ms drains are only known to
/// have arrived since the drain before, which made the RTT read up to 20 ms high. The bounds of
/// the recent reports pin it down.
@Suite struct CallReceiveRoundTripTests {
    /// Reports of a path with round-trip `rtt`, each read `wait` seconds after it arrived, in a
    /// drain that ran 20 ms after the one before: (lower, upper) bounds as `CallReceiveState` makes them.
    static func bounds(rtt: Double, wait: Double) -> (lower: Double, upper: Double) {
        (lower: max(0, rtt + wait - 0.020), upper: rtt + wait)
    }

    @Test func aLoopbackRoundTripReadsAFewMillisecondsAfterSomeReports() {
        var estimate = CallReceiveRoundTrip()
        var seed: UInt32 = 99
        var values: [Double] = []
        for _ in 0..<6 {
            seed = seed &* 1_103_515_245 &+ 12_345
            let wait = Double((seed >> 16) % 20_000) / 1_000_000  // 0-20 ms: where the report fell between two drains
            let (lower, upper) = Self.bounds(rtt: 0.0005, wait: wait)
            values.append(estimate.record(lower: lower, upper: upper))
        }
        #expect(values.allSatisfy { $0 >= 0 && $0 <= 0.0105 }, "\(values)")
        #expect(abs(values.last! - 0.0005) < 0.003, "\(values)")
    }

    @Test func aChangedPathIsFollowed() {
        var estimate = CallReceiveRoundTrip()
        for wait in [0.003, 0.017, 0.009, 0.012] {
            let (lower, upper) = Self.bounds(rtt: 0.002, wait: wait)
            estimate.record(lower: lower, upper: upper)
        }
        let (lower, upper) = Self.bounds(rtt: 0.080, wait: 0.006)
        let after = estimate.record(lower: lower, upper: upper)
        #expect(abs(after - 0.080) <= 0.010, "the new path's report alone: \(after)")
    }

    @Test func anExactArrivalGivesItsOwnValue() {
        var estimate = CallReceiveRoundTrip()
        #expect(estimate.record(lower: nil, upper: 0.030) == 0.030)
        #expect(estimate.record(lower: nil, upper: 0.034) == 0.034, "exact reports that differ: the latest")
        #expect(estimate.seconds == 0.034)
    }
}
