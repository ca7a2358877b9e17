@testable import AudioJitter
import Testing

/// Every 20 ms jump of the playout delay (a stretch or a dropped frame) costs speech quality, more
/// than a constant delay. The buffer shrinks the delay only against the highest target of the last
/// 3 s, and only on a loss it cannot repair, so a target at the edge between two tick-quantised
/// delays does not make it stretch and skip in turn.
@Suite struct JitterDelayHoldTests {
    @Test func aTargetIsHeldForThreeSecondsWhenItFalls() throws {
        var buffer = try JitterBuffer(configuration: .opus)
        #expect(buffer.heldTarget(0.050, now: 10) == 0.050)
        #expect(buffer.heldTarget(0.030, now: 11) == 0.050, "a dip is not trusted yet")
        #expect(buffer.heldTarget(0.060, now: 12) == 0.060, "a rise counts at once")
        #expect(buffer.heldTarget(0.030, now: 14.9) == 0.060)
        #expect(buffer.heldTarget(0.030, now: 15.1) == 0.030, "3 s later the lower target holds")
    }

    /// 30 s of packets with 0-30 ms jitter and 5 % loss, the sender's phase against the pops
    /// anywhere in the frame: once the delay has settled (after 2 s) no frame is dropped and
    /// the delay is not stretched more than once or twice.
    @Test func underSteadyJitterTheDelayStaysPut() throws {
        for phase in stride(from: 0.0, to: 0.02, by: 0.002) {
            var seed: UInt32 = 77
            var simulation = try JitterSimulation(configuration: CallDefaults.jitter, firstPop: phase + 0.0001)
            simulation.add(jitterStream(count: 1_500) { index in
                seed = seed &* 1_103_515_245 &+ 12_345
                let lost = (seed >> 16) % 100 < 5
                seed = seed &* 1_103_515_245 &+ 12_345
                return lost && index > 0 ? nil : Double((seed >> 16) % 30_001) / 1_000_000
            })
            simulation.run(pops: 100)
            let settled = simulation.buffer.statistics
            simulation.run(pops: 1_400)
            let statistics = simulation.buffer.statistics
            #expect(statistics.skipped - settled.skipped == 0, "phase \(phase): \(statistics)")
            #expect(statistics.stretched - settled.stretched <= 2, "phase \(phase): \(statistics)")
            expectAccounted(statistics)
        }
    }
}

/// The agent's jitter configuration (CallMediaConfiguration.defaultJitter): a 40 ms floor, the
/// first packet played at once.
enum CallDefaults {
    static let jitter = JitterBufferConfiguration(minimumDelay: 0.040, startsAtOnce: true)
}
