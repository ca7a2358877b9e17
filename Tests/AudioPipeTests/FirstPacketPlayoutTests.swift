import AudioRTP
import Foundation
import Synchronization
import TestSupport
@testable import AudioPipe
import Testing

/// A call's first received packet is played when it arrives, not at the next 20 ms tick
/// (`CallReceiveState.onFirstAudioPacket` → `MediaClock.requestPlayout` → the engine's early
/// playout), and the sink still gets exactly one frame per tick. Real Opus, real SRTP keys, a real
/// engine on its own clock; nothing is timed: a clock with a one-hour period cannot play the
/// packet by itself.
@Suite struct FirstPacketPlayoutTests {
    static let opus = AudioCodec.opus(payloadType: 111, parameters: OpusParameters(parameters: [:]))

    /// Keeps every frame the engine plays.
    final class FrameSink: AudioSink {
        private let frames = Mutex<[[Int16]]>([])
        func write(_ samples: UnsafeBufferPointer<Int16>) throws { frames.withLock { $0.append(Array(samples)) } }
        func close() throws {}
        var written: [[Int16]] { frames.withLock { $0 } }
    }

    /// Counts calls from any thread.
    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    /// One engine on `clock` with its receive state, sink and counters.
    struct Rig {
        let engine: CallAudioEngine
        let receive: CallReceiveState
        let sink = FrameSink()
        let sendState = CallSendState()
        let decoded = Counter()

        init(clock: MediaClock) throws {
            let codecs = try CallCodecSet(codec: FirstPacketPlayoutTests.opus, configuration: CallMediaConfiguration())
            receive = try CallReceiveState(codecs: codecs, jitter: CallMediaConfiguration.defaultJitter)
            let keys = try #require(SRTPKeyMaterial(exported: (0..<60).map { UInt8($0) }, profile: .aes128CmSha1_80,
                                                    role: .client))
            let decoded = decoded
            let setup = CallAudioEngine.Setup(
                codec: FirstPacketPlayoutTests.opus, configuration: CallMediaConfiguration(),
                send: { _ in }, source: ToneSource(frequency: 440), sink: sink,
                receive: receive, sendState: sendState, sends: true, ssrc: 1, cname: "first-packet",
                ntpClock: NTPClock(monotonicNow: MonotonicTime.now()), telephoneEventPT: nil, rtcpMinimumInterval: 5,
                firstAudioDecoded: { decoded.add() })
            engine = try CallAudioEngine(setup: setup, srtp: try SRTPSender(keyMaterial: keys), clock: clock)
        }

        /// Records Opus packet `index` of a speech-like stream as arriving now.
        func receivePacket(_ index: Int) throws {
            let encoder = try CallCodecSet(codec: FirstPacketPlayoutTests.opus, configuration: CallMediaConfiguration()).encoder
            let frame = TestSignal.frames(TestSignal.speechLike(count: 960 * (index + 1)))[index]
            let payload = try encoder.encode(frame)
            let header = RTPHeader(payloadType: 111, sequenceNumber: UInt16(index), timestamp: UInt32(index * 960), ssrc: 9)
            if receive.record(header, payloadBytes: payload.count, audioPayload: payload[...], arrival: MonotonicTime.now()).firstAudio {
                receive.firstAudioRecorded()
            }
        }
    }

    static func wait(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 where !condition() { Thread.sleep(forTimeInterval: 0.01) }
        return condition()
    }

    @Test func theFirstPacketIsPlayedWhenItArrivesNotAtTheNextTick() throws {
        let clock = MediaClock(name: "test-first-1", periodNanoseconds: 3_600_000_000_000)  // one tick an hour
        let rig = try Rig(clock: clock)
        rig.engine.start()
        #expect(Self.wait { rig.sink.written.count == 1 }, "the engine's first tick plays at once (nothing received yet)")
        #expect(rig.decoded.count == 0)
        try rig.receivePacket(0)
        #expect(Self.wait { rig.decoded.count == 1 }, "the first packet was played without waiting for a tick")
        rig.engine.stop()
        let frames = rig.sink.written
        #expect(frames.count == 2)
        #expect(frames.last?.contains { $0 != 0 } == true, "the early frame is decoded audio, not silence")
        #expect(rig.sendState.sent.packets == 1, "no periodic tick ran: only the first tick sent")
    }

    @Test func theEarlyFrameStandsInForTheNextTicksSoTheSinkGetsOneFramePerTick() throws {
        let clock = MediaClock(name: "test-first-2", periodNanoseconds: 20_000_000)
        let rig = try Rig(clock: clock)
        rig.engine.start()
        #expect(Self.wait { rig.sendState.sent.packets >= 3 })
        try rig.receivePacket(0)
        #expect(Self.wait { rig.decoded.count == 1 })
        let sentAtFirstAudio = rig.sendState.sent.packets
        #expect(Self.wait { rig.sendState.sent.packets >= sentAtFirstAudio + 3 })
        rig.engine.stop()
        #expect(rig.sink.written.count == rig.sendState.sent.packets,
                "one frame played per tick (each tick sends one packet), the early one included")
    }

    @Test func theHookRunsOnceForTheFirstAudioPacketOnly() throws {
        let codecs = try CallCodecSet(codec: Self.opus, configuration: CallMediaConfiguration())
        let receive = try CallReceiveState(codecs: codecs, jitter: CallMediaConfiguration.defaultJitter)
        let calls = Counter()
        receive.onFirstAudioPacket { calls.add() }
        let event = RTPHeader(payloadType: 101, sequenceNumber: 1, timestamp: 0, ssrc: 9)
        let dtmf = receive.record(event, payloadBytes: 4, audioPayload: nil, arrival: 1)
        #expect(dtmf.firstPacket && !dtmf.firstAudio, "a telephone-event packet has no audio to play")
        let audio: [UInt8] = [0xF8, 0xFF, 0xFE]
        var firstAudio: [Bool] = []
        for sequence in 2...4 {
            let header = RTPHeader(payloadType: 111, sequenceNumber: UInt16(sequence), timestamp: UInt32(sequence * 960), ssrc: 9)
            let recorded = receive.record(header, payloadBytes: audio.count, audioPayload: audio[...],
                                          arrival: 1 + Double(sequence) * 0.02)
            #expect(!recorded.firstPacket)
            firstAudio.append(recorded.firstAudio)
        }
        #expect(firstAudio == [true, false, false])
        #expect(calls.count == 0, "the hook waits for the receive path's go (after it announced the packet)")
        receive.firstAudioRecorded()
        receive.firstAudioRecorded()
        #expect(calls.count == 1, "once")
        let late = Counter()
        receive.onFirstAudioPacket { late.add() }
        receive.firstAudioRecorded()
        #expect(late.count == 0, "a hook set after the first audio packet never runs")
    }
}
