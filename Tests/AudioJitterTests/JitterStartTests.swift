@testable import AudioJitter
import Testing

/// `startsAtOnce`: the first packet of a stream plays at the first slot after it arrives, and the
/// delay then grows to the target by stretching; later talkspurts still start at the target.
@Suite struct JitterStartTests {
    static let floor40 = JitterBufferConfiguration(minimumDelay: 0.040)

    @Test func withoutItTheFirstPacketWaitsForTheTargetDelay() throws {
        var simulation = try JitterSimulation(configuration: Self.floor40)
        simulation.add(jitterStream(count: 10))
        let outputs = simulation.run(pops: 10)
        #expect(outputs[0] == .silence && outputs[1] == .frame(jitterPayload(1000)))
    }

    @Test func theFirstPacketPlaysAtOnceAndOneStretchReachesTheTarget() throws {
        var configuration = Self.floor40
        configuration.startsAtOnce = true
        var simulation = try JitterSimulation(configuration: configuration)
        simulation.add(jitterStream(count: 50))
        let outputs = simulation.run(pops: 51)
        #expect(outputs[0] == .frame(jitterPayload(1000)), "first audio one slot earlier")
        #expect(outputs[1] == .lost(nextPayloadForFEC: nil), "then one concealed slot grows the delay")
        #expect(playedSequences(outputs) == (0..<50).map { 1000 + UInt16($0) }, "nothing is lost")
        let statistics = simulation.buffer.statistics
        #expect(statistics.stretched == 1 && statistics.lost == 0 && statistics.late == 0)
        #expect(abs((statistics.currentDelayMs ?? -1) - 25) < 1e-6, "then it plays at the 40 ms target (20 + 5 ms)")
        expectAccounted(statistics)
    }

    @Test func aLaterTalkspurtStartsAtTheTargetAsBefore() throws {
        // 10 packets, a 1 s silence (timestamps jump, sequence numbers go on), 10 more.
        func run(startsAtOnce: Bool) throws -> (outputs: [JitterOutput], stretched: Int) {
            var configuration = Self.floor40
            configuration.startsAtOnce = startsAtOnce
            var simulation = try JitterSimulation(configuration: configuration)
            simulation.add(jitterStream(count: 10))
            simulation.add(jitterStream(count: 10, firstSequence: 1010, firstTimestamp: 50_000 + 960 * 60, start: 1.2))
            let outputs = simulation.run(pops: 80)
            return (outputs, simulation.buffer.statistics.stretched)
        }
        let atOnce = try run(startsAtOnce: true), waiting = try run(startsAtOnce: false)
        let resumed = try #require(atOnce.outputs.firstIndex(of: .frame(jitterPayload(1010))))
        #expect(waiting.outputs.firstIndex(of: .frame(jitterPayload(1010))) == resumed,
                "the second talkspurt starts in the same slot either way")
        #expect(atOnce.outputs[resumed - 1] == .silence)
        #expect(atOnce.stretched == waiting.stretched + 1, "only the stream's start stretched once more")
        #expect(playedSequences(atOnce.outputs) == playedSequences(waiting.outputs))
    }
}
