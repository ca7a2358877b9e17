@testable import AudioJitter
import Testing

/// One packet of a simulated stream.
struct JitterTestPacket {
    var arrival: Double
    var sequence: UInt16
    var timestamp: UInt32
    var ssrc: UInt32 = 1
}

/// The payload used for a sequence number, so outputs identify their packet.
func jitterPayload(_ sequence: UInt16) -> [UInt8] { [UInt8(sequence >> 8), UInt8(sequence & 0xFF)] }

/// A stream of `count` 20 ms packets sent from time `start`; `delay` gives each packet's
/// extra network delay in seconds, or nil to lose it.
func jitterStream(
    count: Int, firstSequence: UInt16 = 1000, firstTimestamp: UInt32 = 50_000, frame: UInt32 = 960,
    start: Double = 0, ssrc: UInt32 = 1, delay: (Int) -> Double? = { _ in 0 }
) -> [JitterTestPacket] {
    (0..<count).compactMap { index in
        guard let extra = delay(index) else { return nil }
        return JitterTestPacket(
            arrival: start + Double(index) * 0.02 + extra, sequence: firstSequence &+ UInt16(truncatingIfNeeded: index),
            timestamp: firstTimestamp &+ UInt32(truncatingIfNeeded: index) &* frame, ssrc: ssrc)
    }
}

/// Drives a buffer: before each pop at `firstPop + k * period`, inserts every packet that has
/// arrived by then (in arrival order).
struct JitterSimulation {
    var buffer: JitterBuffer
    var outputs: [JitterOutput] = []
    private var pending: [JitterTestPacket] = []
    private(set) var now: Double

    init(configuration: JitterBufferConfiguration = .opus, firstPop: Double = 0.005) throws {
        buffer = try JitterBuffer(configuration: configuration)
        now = firstPop
    }

    mutating func add(_ packets: [JitterTestPacket]) {
        pending.append(contentsOf: packets)
        pending.sort { $0.arrival < $1.arrival }
    }

    /// Runs `pops` playout slots and returns their outputs.
    @discardableResult
    mutating func run(pops: Int, period: Double = 0.02) -> [JitterOutput] {
        var produced: [JitterOutput] = []
        for _ in 0..<pops {
            var delivered = 0
            while delivered < pending.count && pending[delivered].arrival <= now + 1e-9 {
                let packet = pending[delivered]
                buffer.insert(seq: packet.sequence, timestamp: packet.timestamp, payload: jitterPayload(packet.sequence),
                              arrival: packet.arrival, ssrc: packet.ssrc)
                delivered += 1
            }
            pending.removeFirst(delivered)
            produced.append(buffer.pop(now: now))
            now += period
        }
        outputs.append(contentsOf: produced)
        return produced
    }
}

/// The sequence numbers of the `.frame` outputs, in order.
func playedSequences(_ outputs: [JitterOutput]) -> [UInt16] {
    outputs.compactMap { output in
        if case let .frame(payload) = output { return UInt16(payload[0]) << 8 | UInt16(payload[1]) }
        return nil
    }
}

/// Checks that every inserted packet is accounted for exactly once.
func expectAccounted(_ statistics: JitterBufferStatistics, sourceLocation: SourceLocation = #_sourceLocation) {
    let accounted = statistics.played + statistics.late + statistics.duplicates + statistics.overflowDropped
        + statistics.skipped + statistics.flushed + statistics.bufferedPackets
    #expect(accounted == statistics.received, "\(statistics)", sourceLocation: sourceLocation)
}
