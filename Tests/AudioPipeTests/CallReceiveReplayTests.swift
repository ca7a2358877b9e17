@testable import MediaBenchmarks
import AudioCodec
import AudioPipe
import TestSupport
import Testing

/// `CallReceiveReplay` (the receive path on a virtual clock, behind `wcs-quality-replay`): the same
/// packets give the same samples, every tick gives one frame, losses are rebuilt from FEC or
/// concealed, and the two readings (media clock drain, exact arrival) really differ in what the
/// jitter buffer sees.
@Suite struct CallReceiveReplayTests {
    /// `count` packets of speech-like audio with in-band FEC, sent every 20 ms from t = 0; the
    /// packets in `lost` never arrive, the others after 1 ms plus `delay(index)` seconds.
    static func packets(count: Int = 150, lost: Set<Int>, delay: (Int) -> Double) throws -> [CallReceiveReplay.Packet] {
        let encoder = try OpusEncoder(configuration: OpusEncoderConfiguration(inbandFEC: true, expectedPacketLossPercent: 10))
        let frames = TestSignal.frames(TestSignal.speechLike(count: 960 * count))
        return try (0..<count).compactMap { index in
            let payload = try encoder.encode(frames[index])
            guard !lost.contains(index) else { return nil }
            return CallReceiveReplay.Packet(sequenceNumber: UInt16(truncatingIfNeeded: 65_500 + index),
                                            timestamp: UInt32(truncatingIfNeeded: 4_294_960_000 + 960 * index),
                                            arrival: Double(index) * 0.02 + 0.001 + delay(index), payload: payload)
        }
    }

    /// A fixed pseudo-random delay of 0-30 ms per packet (no global generator: the same every run).
    static func jitter(_ index: Int) -> Double { Double((index * 7_919) % 31) / 1000 }

    @Test func theSamePacketsGiveTheSameSamples() throws {
        let packets = try Self.packets(lost: [20, 21, 50, 90], delay: Self.jitter)
        for reading in CallReceiveReplay.Reading.allCases {
            let first = try CallReceiveReplay.run(packets, reading: reading, firstTick: 0.007)
            let second = try CallReceiveReplay.run(packets, reading: reading, firstTick: 0.007)
            #expect(first.samples == second.samples, "\(reading)")
            #expect(first.jitter == second.jitter, "\(reading)")
            #expect(first.samples.contains { $0 != 0 }, "\(reading): audio came out")
        }
    }

    @Test func everyTickPlaysOneFrameAndLossesAreRebuiltOrConcealed() throws {
        let packets = try Self.packets(lost: [40, 80, 81], delay: { _ in 0 })
        let result = try CallReceiveReplay.run(packets, reading: .atTicks, firstTick: 0.005, tail: 0.2)
        let slots = result.decoded + result.recoveredFEC + result.concealed + result.silence
        #expect(result.samples.count == slots * 960)
        #expect(result.recoveredFEC >= 1, "a lost packet with its successor in hand is rebuilt from FEC")
        #expect(result.recoveredFEC + result.concealed >= 3, "each of the 3 lost slots is rebuilt or concealed")
        #expect(result.jitter?.lost == 3)
        #expect(result.decoded == packets.count, "every packet that arrived is played")
    }

    @Test func theTwoReadingsAccountArrivalsDifferently() throws {
        // A sender phase near the tick edge: exact arrivals and drain-time reads differ.
        let packets = try Self.packets(lost: [], delay: Self.jitter)
        let exact = try CallReceiveReplay.run(packets, reading: .atArrival, firstTick: 0.0, keepSlots: true)
        let ticks = try CallReceiveReplay.run(packets, reading: .atTicks, firstTick: 0.0, keepSlots: true)
        #expect(exact.slots.count == ticks.slots.count)
        let delays = { (result: CallReceiveReplay.Result) in result.slots.compactMap { $0.jitter?.targetDelayMs } }
        #expect(delays(exact) != delays(ticks), "the jitter buffer saw the same arrivals both ways")
    }
}
