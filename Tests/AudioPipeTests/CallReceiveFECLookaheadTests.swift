import AudioRTP
import TestSupport
@testable import AudioPipe
import Testing

/// The receive path tells the jitter buffer when the stream carries Opus in-band FEC
/// (`CallReceiveState.record` reads each audio packet's LBRR flag until the first one has it): the
/// buffer then keeps the next packet in hand, one frame more of delay, so a lost frame can be
/// rebuilt from it. A stream without FEC keeps the shorter delay.
@Suite struct CallReceiveFECLookaheadTests {
    static let opus = AudioCodec.opus(payloadType: 111, parameters: OpusParameters(parameters: ["useinbandfec": "1"]))

    /// The jitter buffer's target after 50 packets of speech sent with or without FEC, every other
    /// one 25 ms late (above the agent's 40 ms floor, which alone would keep the next packet in hand).
    static func target(senderFEC: Bool) throws -> (target: Double, lookahead: Bool) {
        let sender = try CallCodecSet(codec: opus, configuration: CallMediaConfiguration(opusFEC: senderFEC))
        let receiver = try CallCodecSet(codec: opus, configuration: CallMediaConfiguration())
        let receive = try CallReceiveState(codecs: receiver, jitter: CallMediaConfiguration.defaultJitter)
        let frames = TestSignal.frames(TestSignal.speechLike(count: 960 * 50))
        for index in 0..<50 {
            let payload = try sender.encoder.encode(frames[index])
            let header = RTPHeader(payloadType: 111, sequenceNumber: UInt16(index), timestamp: UInt32(index * 960), ssrc: 9)
            _ = receive.record(header, payloadBytes: payload.count, audioPayload: payload[...], arrival: 10 + Double(index) * 0.02 + (index % 2 == 0 ? 0 : 0.025))
        }
        let statistics = try #require(receive.snapshot.jitter)
        return (statistics.targetDelayMs, receive.nextPacketRepairsLoss)
    }

    @Test func aStreamWithFECGetsOneFrameMoreOfTargetDelay() throws {
        let with = try Self.target(senderFEC: true)
        let without = try Self.target(senderFEC: false)
        #expect(with.lookahead && !without.lookahead)
        #expect(abs(with.target - without.target - 20) < 1e-6, "with \(with.target) ms, without \(without.target) ms")
    }
}
