@testable import AudioJitter
import Testing

/// `nextPacketRepairsLoss` (set by the receive path once the stream carries Opus in-band FEC): the
/// target covers one more frame, so when a loss comes due the packet after it, which holds the
/// lost frame's FEC copy, is already in hand, also under 0-30 ms of jitter.
@Suite struct JitterFECLookaheadTests {
    /// Uniform 0-30 ms of extra delay per packet from a fixed LCG (the same every run).
    static func jitter(count: Int, lostEvery: Int) -> [JitterTestPacket] {
        var seed: UInt32 = 2_024
        return jitterStream(count: count) { index in
            seed = seed &* 1_103_515_245 &+ 12_345
            return index % lostEvery == lostEvery - 1 ? nil : Double((seed >> 16) % 30_001) / 1_000_000
        }
    }

    /// Of the lost slots, how many came with the next packet's payload for FEC.
    static func repairable(_ outputs: [JitterOutput]) -> (repairable: Int, lost: Int) {
        var result = (repairable: 0, lost: 0)
        for output in outputs {
            guard case let .lost(next) = output else { continue }
            result.lost += 1
            if next != nil { result.repairable += 1 }
        }
        return result
    }

    static func run(lookahead: Bool, firstPop: Double) throws -> (outputs: [JitterOutput], statistics: JitterBufferStatistics) {
        var simulation = try JitterSimulation(configuration: .opus, firstPop: firstPop)
        simulation.buffer.nextPacketRepairsLoss = lookahead
        simulation.add(jitter(count: 1_500, lostEvery: 20))
        let outputs = simulation.run(pops: 1_520)
        return (outputs, simulation.buffer.statistics)
    }

    @Test func theTargetCoversOneMoreFrame() throws {
        var buffer = try JitterBuffer(configuration: .opus)
        let without = buffer.targetDelay
        buffer.nextPacketRepairsLoss = true
        #expect(abs(buffer.targetDelay - without - 0.020) < 1e-9)
    }

    @Test func underJitterEveryLossHasTheNextPacketInHand() throws {
        var totalWith = 0, totalWithout = 0
        for phase in stride(from: 0.0, to: 0.02, by: 0.004) {
            let with = try Self.run(lookahead: true, firstPop: phase + 0.0005)
            let without = try Self.run(lookahead: false, firstPop: phase + 0.0005)
            let repaired = Self.repairable(with.outputs), plain = Self.repairable(without.outputs)
            // 75 packets lost; the last loss has no successor.
            #expect(repaired.repairable >= 74, "phase \(phase): \(repaired) \(with.statistics)")
            #expect(with.statistics.skipped == 0 && with.statistics.stretched <= 2, "phase \(phase): \(with.statistics)")
            #expect(with.statistics.late == 0, "phase \(phase): \(with.statistics)")
            expectAccounted(with.statistics)
            totalWith += repaired.repairable
            totalWithout += plain.repairable
        }
        // Without the lookahead, where the ticks fall decides: at some phases a quarter of the
        // losses find their successor not yet there.
        #expect(totalWith > totalWithout + 20, "with \(totalWith), without \(totalWithout)")
    }
}
