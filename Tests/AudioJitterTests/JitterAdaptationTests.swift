import TestSupport
@testable import AudioJitter
import Testing

@Suite struct JitterAdaptationTests {
    @Test func jitterRaisesTheTargetAndACalmPeriodLowersIt() throws {
        var generator = RTPSeededGenerator(seed: 3)
        let wild = (0..<150).map { _ in Double.random(in: 0..<0.4, using: &generator) }
        var simulation = try JitterSimulation()
        simulation.add(jitterStream(count: 1500) { index in
            switch index {
            case ..<100: 0  // 2 s calm
            case ..<350: index % 2 == 1 ? 0.050 : 0  // 5 s: every other packet 50 ms late
            case ..<500: wild[index - 350]  // 3 s: up to 400 ms
            default: 0  // 20 s calm
            }
        })
        simulation.run(pops: 100)
        #expect(simulation.buffer.statistics.targetDelayMs == 20)

        simulation.run(pops: 200)
        let before = simulation.buffer.statistics
        #expect(before.lost > 0)  // the first late packets, before the target caught up
        simulation.run(pops: 50)
        var statistics = simulation.buffer.statistics
        #expect(statistics.targetDelayMs >= 60 && statistics.targetDelayMs <= 80)
        // Adapted: nothing late or lost in the last second.
        #expect(statistics.late == before.late && statistics.lost == before.lost)
        #expect(statistics.stretched > 0)

        simulation.run(pops: 150)
        #expect(simulation.buffer.statistics.targetDelayMs == 200)  // bounded

        simulation.run(pops: 1000)
        statistics = simulation.buffer.statistics
        #expect(statistics.targetDelayMs == 20)
        #expect((statistics.currentDelayMs ?? 1000) < 40)
        #expect(statistics.skipped > 0)
        expectAccounted(statistics)
    }

    @Test func delayStaysWithinBoundsUnderHeavyJitter() throws {
        var generator = RTPSeededGenerator(seed: 11)
        let delays = (0..<1000).map { _ in Double.random(in: 0..<1.0, using: &generator) }
        var simulation = try JitterSimulation()
        simulation.add(jitterStream(count: 1000) { delays[$0] })
        for _ in 0..<60 {
            simulation.run(pops: 20)
            let statistics = simulation.buffer.statistics
            #expect(statistics.targetDelayMs >= 20 && statistics.targetDelayMs <= 200)
            #expect((statistics.currentDelayMs ?? 0) <= 260)
        }
        expectAccounted(simulation.buffer.statistics)
    }

    /// 80 s of packets whose sender clock runs at `rate` times the playout clock.
    private func driftedSimulation(rate: Double) throws -> JitterBufferStatistics {
        var simulation = try JitterSimulation()
        simulation.add(jitterStream(count: 4000).map { packet in
            var drifted = packet
            drifted.arrival *= rate
            return drifted
        })
        simulation.run(pops: 3990)
        return simulation.buffer.statistics
    }

    @Test func slowSenderClockIsAbsorbedByStretching() throws {
        // Packets come 0.1 % slower than the playout clock consumes them (1 ms per second).
        let statistics = try driftedSimulation(rate: 1.001)
        #expect(statistics.stretched >= 3)
        #expect(statistics.lost == 0 && statistics.late == 0 && statistics.played >= 3980)
        #expect(statistics.targetDelayMs == 20)
    }

    @Test func fastSenderClockIsAbsorbedBySkipping() throws {
        let statistics = try driftedSimulation(rate: 0.999)
        #expect(statistics.skipped >= 3)
        #expect(statistics.lost == 0 && statistics.late == 0)
        #expect((statistics.currentDelayMs ?? 1000) < 40)
    }

    @Test func randomTrafficKeepsEveryPacketAccountedFor() throws {
        var generator = RTPSeededGenerator(seed: 0x5EED)
        var buffer = try JitterBuffer()
        var sequence: UInt16 = 40_000
        var timestamp: UInt32 = UInt32.max - 100_000
        var ssrc: UInt32 = 1
        var sendTime = 0.0
        var arrivals: [(time: Double, seq: UInt16, ts: UInt32, ssrc: UInt32)] = []
        for _ in 0..<6000 {
            switch Int.random(in: 0..<1000, using: &generator) {
            case 0..<3: ssrc &+= 1  // new source
            case 3..<13:  // DTX gap
                let gap = Int.random(in: 2...40, using: &generator)
                timestamp &+= UInt32(gap * 960)
                sendTime += Double(gap) * 0.02
            case 13..<18:  // garbage sequence number and timestamp
                arrivals.append((sendTime, UInt16.random(in: 0...65535, using: &generator), UInt32.random(in: 0...UInt32.max, using: &generator), ssrc))
            default: break
            }
            if Int.random(in: 0..<100, using: &generator) >= 3 {  // 3 % loss
                let delay = Double.random(in: 0..<1, using: &generator) < 0.9
                    ? Double.random(in: 0..<0.03, using: &generator) : Double.random(in: 0..<0.5, using: &generator)
                arrivals.append((sendTime + delay, sequence, timestamp, ssrc))
                if Int.random(in: 0..<100, using: &generator) < 2 {  // duplicate
                    arrivals.append((sendTime + delay + 0.05, sequence, timestamp, ssrc))
                }
            }
            sequence &+= 1
            timestamp &+= 960
            sendTime += 0.02
        }
        arrivals.sort { $0.time < $1.time }
        var now = 0.0
        var next = 0
        while next < arrivals.count {
            now += 0.02 + Double.random(in: -0.003...0.003, using: &generator)
            while next < arrivals.count && arrivals[next].time <= now {
                let packet = arrivals[next]
                buffer.insert(seq: packet.seq, timestamp: packet.ts, payload: [1], arrival: packet.time, ssrc: packet.ssrc)
                next += 1
            }
            _ = buffer.pop(now: now)
            let statistics = buffer.statistics
            #expect(statistics.targetDelayMs >= 20 && statistics.targetDelayMs <= 200)
            #expect(statistics.bufferedPackets <= 50)
        }
        let statistics = buffer.statistics
        expectAccounted(statistics)
        #expect(statistics.played > 4000)
        #expect(statistics.received == arrivals.count)
    }
}
