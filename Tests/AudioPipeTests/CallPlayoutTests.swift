import AudioRTP
import TestSupport
@testable import AudioPipe
import Foundation
import Testing

/// The receive path's playout (`CallPlayout`, what `CallAudioEngine` runs every tick) on a real
/// Opus stream through a real `CallReceiveState`: packets arrive every 20 ms (some never), the
/// slots are played 1 ms after each arrival, and the counters say how each slot was filled.
@Suite struct CallPlayoutTests {
    static let opus = AudioCodec.opus(payloadType: 111, parameters: OpusParameters(parameters: ["useinbandfec": "1"]))

    struct Run {
        var slots: [CallPlayout.Slot] = []
        var samples: [[Int16]] = []
        var counters: CallReceiveState.Snapshot
    }

    /// Plays `count` slots of speech sent with (or without) FEC, the packets at `lost` never arriving.
    static func play(senderFEC: Bool, lost: Set<Int>, count: Int = 60) throws -> Run {
        let configuration = CallMediaConfiguration(opusFEC: senderFEC)
        let sender = try CallCodecSet(codec: opus, configuration: configuration)
        let receiver = try CallCodecSet(codec: opus, configuration: CallMediaConfiguration())
        let receive = try CallReceiveState(codecs: receiver, jitter: CallMediaConfiguration.defaultJitter)
        var playout = CallPlayout(codecs: receiver, receive: receive)
        let frames = TestSignal.frames(TestSignal.speechLike(count: 960 * count))
        var slots: [CallPlayout.Slot] = []
        var samples: [[Int16]] = []
        for index in 0..<count {
            let payload = try sender.encoder.encode(frames[index])
            let arrival = 100 + Double(index) * 0.02
            if !lost.contains(index) {
                let header = RTPHeader(payloadType: 111, sequenceNumber: UInt16(index), timestamp: UInt32(index * 960), ssrc: 7)
                _ = receive.record(header, payloadBytes: payload.count, audioPayload: payload[...], arrival: arrival)
            }
            let (slot, failure) = playout.next(now: arrival + 0.001) { samples.append(Array($0)) }
            #expect(failure == nil)
            slots.append(slot)
        }
        return Run(slots: slots, samples: samples, counters: receive.snapshot)
    }

    @Test func aSingleLossIsRebuiltFromTheNextPacketsFEC() throws {
        let run = try Self.play(senderFEC: true, lost: [20, 35])
        #expect(run.counters.framesRecoveredFEC == 2, "slots: \(run.slots)")
        #expect(run.counters.framesConcealed == run.slots.filter { $0 == .concealed }.count)
        #expect(run.slots.filter { $0 == .recoveredFEC }.count == 2)
        #expect(run.samples.allSatisfy { $0.count == 960 })
    }

    @Test func withoutFECInTheStreamTheSameLossIsConcealedNotCountedAsFEC() throws {
        let run = try Self.play(senderFEC: false, lost: [20, 35])
        #expect(run.counters.framesRecoveredFEC == 0)
        #expect(run.slots.filter { $0 == .recoveredFEC }.isEmpty)
        let withFEC = try Self.play(senderFEC: true, lost: [20, 35])
        #expect(run.counters.framesConcealed >= withFEC.counters.framesConcealed + 2,
                "the two losses are concealed: \(run.counters.framesConcealed) against \(withFEC.counters.framesConcealed)")
    }

    @Test func aLongBurstFadesToSilenceAndTheAudioComesBack() throws {
        let burst = Set(20..<28)
        let run = try Self.play(senderFEC: true, lost: burst)
        func rms(_ frame: [Int16]) -> Double { (frame.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(frame.count)).squareRoot() }
        let levels = run.samples.map(rms)
        let before = levels[10..<20].reduce(0, +) / 10
        // Within the burst the output dies away to silence (PLC, then the fade, then the buffer's gap).
        let tail = levels[26..<29]
        #expect(tail.allSatisfy { $0 < 0.01 * before }, "levels \(levels[18..<32].map { Int($0) }), speech \(Int(before))")
        #expect(levels[40..<50].reduce(0, +) / 10 > 0.5 * before, "speech plays again after the burst")
        #expect(run.counters.framesDecoded > 40)
    }
}
