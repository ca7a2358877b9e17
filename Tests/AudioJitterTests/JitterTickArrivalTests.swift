@testable import AudioJitter
import Testing

/// Packets read in a periodic drain (the media clock reads a call's sockets once per 20 ms tick)
/// are only known to have arrived between two drains. A sender whose phase sits at a tick edge,
/// with a millisecond of jitter, then lands in one tick or the next; stamped with the drain time,
/// its transit jumps by 20 ms now and then, and the buffer drops a frame and later stretches.
/// `arrivalEstimate` accounts each packet at its on-time arrival within the window instead.
@Suite struct JitterTickArrivalTests {
    /// What a 20 s stream did when read at 20 ms ticks, each packet stamped by `stamp`.
    static func run(stamp: (JitterBuffer, JitterTestPacket, _ previousTick: Double, _ tick: Double) -> Double)
        throws -> JitterBufferStatistics {
        var buffer = try JitterBuffer(configuration: .opus)
        var seed: UInt32 = 12_345
        let packets = jitterStream(count: 1_000, start: 0.0195) { _ in
            seed = seed &* 1_103_515_245 &+ 12_345
            return Double(seed >> 16 % 3_001) / 1_000_000 - 0.0015  // ±1.5 ms around a tick edge
        }
        var next = 0
        var previousTick = 0.0
        for slot in 1...1_010 {
            let tick = Double(slot) * 0.02
            while next < packets.count && packets[next].arrival <= tick {
                let packet = packets[next]
                buffer.insert(seq: packet.sequence, timestamp: packet.timestamp, payload: jitterPayload(packet.sequence),
                              arrival: stamp(buffer, packet, previousTick, tick))
                next += 1
            }
            _ = buffer.pop(now: tick)
            previousTick = tick
        }
        return buffer.statistics
    }

    @Test func packetsReadAtTicksAreAccountedOnTimeWithinTheirWindow() throws {
        let estimated = try Self.run { buffer, packet, previous, tick in
            buffer.arrivalEstimate(timestamp: packet.timestamp, earliest: previous, latest: tick)
        }
        let quantised = try Self.run { _, _, _, tick in tick }
        print("1000 packets read at 20 ms ticks: estimated arrival skipped \(estimated.skipped), stretched \(estimated.stretched); "
              + "tick-stamped skipped \(quantised.skipped), stretched \(quantised.stretched)")
        #expect(estimated.skipped == 0, "no frame dropped: \(estimated)")
        #expect(estimated.stretched <= 1, "at most the start's stretch: \(estimated)")
        #expect(estimated.late == 0 && estimated.lost == 0)
        #expect(quantised.skipped + quantised.stretched > estimated.skipped + estimated.stretched,
                "stamped with the tick, the phase at the edge shows as 20 ms jumps: \(quantised)")
    }

    @Test func theEstimateStaysInsideTheWindowAndIsExactForAPreciseArrival() throws {
        var buffer = try JitterBuffer(configuration: .opus)
        #expect(buffer.arrivalEstimate(timestamp: 0, earliest: 0.98, latest: 1.0) == 1.0, "no stream yet: the read time")
        buffer.insert(seq: 1, timestamp: 48_000, payload: [1], arrival: 1.0)  // reference: transit 1.0 - 0 at media 0
        // On time for timestamp + 960 (20 ms later) is 1.02.
        #expect(abs(buffer.arrivalEstimate(timestamp: 48_960, earliest: 1.01, latest: 1.03) - 1.02) < 1e-9, "on time, in the window")
        #expect(buffer.arrivalEstimate(timestamp: 48_960, earliest: 1.025, latest: 1.04) == 1.025, "late: the window's start")
        #expect(buffer.arrivalEstimate(timestamp: 48_960, earliest: 1.00, latest: 1.015) == 1.015, "early: the read time")
        #expect(buffer.arrivalEstimate(timestamp: 48_960, earliest: 1.05, latest: 1.05) == 1.05, "a precise arrival is kept")
    }
}
