import AudioRTP
import SystemSupport
import Foundation
import Synchronization
import TestSupport
@testable import AudioPipe
import Testing

/// A call's first received packet is played when it arrives, not at the next 20 ms tick
/// (`CallReceiveInbox.onFirstAudio` → `MediaClock.requestPlayout` → the engine takes the inbox
/// and plays early), and the sink still gets exactly one frame per tick. Real Opus, real SRTP keys, a real
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

    /// One engine on `clock` with its receive state, sink and counters, and the peer's SRTP sender.
    struct Rig {
        let engine: CallAudioEngine
        let receive: CallReceiveState
        let inbox = CallReceiveInbox(audioPayloadType: 111)
        let peer: SRTPSender
        let sink = FrameSink()
        let sendState = CallSendState()
        let decoded = Counter()

        init(clock: MediaClock) throws {
            let codecs = try CallCodecSet(codec: FirstPacketPlayoutTests.opus, configuration: CallMediaConfiguration())
            receive = try CallReceiveState(codecs: codecs, jitter: CallMediaConfiguration.defaultJitter)
            let exported = (0..<60).map { UInt8($0) }
            let keys = try #require(SRTPKeyMaterial(exported: exported, profile: .aes128CmSha1_80, role: .client))
            peer = try SRTPSender(keyMaterial: try #require(SRTPKeyMaterial(exported: exported, profile: .aes128CmSha1_80,
                                                                               role: .server)))
            let decoded = decoded
            let ntpClock = NTPClock(monotonicNow: MonotonicTime.now())
            let setup = CallAudioEngine.Setup(
                codec: FirstPacketPlayoutTests.opus, configuration: CallMediaConfiguration(),
                send: { _ in }, source: ToneSource(frequency: 440), sink: sink, stages: [],
                receive: receive, inbox: inbox, sendState: sendState, sends: true, receives: true, ssrc: 1, cname: "first-packet",
                ntpClock: ntpClock, telephoneEventPT: nil, rtcpMinimumInterval: 5,
                firstAudioDecoded: { decoded.add() })
            let negotiated = try CallMediaTransportOverUDPTests.negotiate().answerer
            try #require(negotiated.codec.payloadType == 111)
            let receiver = CallMediaReceiver(srtp: try SRTPReceiver(keyMaterial: keys), context: CallMediaReceiver.Context(
                negotiated: negotiated, receive: receive, inbox: inbox, ourSSRC: 1, ntpClock: ntpClock,
                event: { _ in }, dtls: { _ in }))
            engine = try CallAudioEngine(setup: setup, srtp: try SRTPSender(keyMaterial: keys), receiver: receiver, clock: clock)
        }

        /// Queues Opus packet `index` of a speech-like stream, SRTP-protected by the peer, as the
        /// loop does when it arrives.
        func receivePacket(_ index: Int) throws {
            let encoder = try CallCodecSet(codec: FirstPacketPlayoutTests.opus, configuration: CallMediaConfiguration()).encoder
            let frame = TestSignal.frames(TestSignal.speechLike(count: 960 * (index + 1)))[index]
            let payload = try encoder.encode(frame)
            let header = RTPHeader(payloadType: 111, sequenceNumber: UInt16(index), timestamp: UInt32(index * 960), ssrc: 9)
            var packet = try RTPPacket(header: header, payload: payload).serialized()
            try peer.protectRTP(&packet)
            #expect(inbox.put(packet, arrival: MonotonicTime.now()))
        }
    }

    static func wait(_ condition: () -> Bool) -> Bool { eventually(timeout: 5, interval: 0.01, condition) }

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

    @Test func theInboxHookRunsOnceForTheFirstAudioPacketOnly() throws {
        let inbox = CallReceiveInbox(audioPayloadType: 111)
        let calls = Counter()
        inbox.onFirstAudio { calls.add() }
        var event = [UInt8](repeating: 0, count: 16)
        event[0] = 0x80
        event[1] = 101
        #expect(inbox.put(event, arrival: 1))
        #expect(calls.count == 0, "a telephone-event packet has no audio to play")
        var rtcp = event
        rtcp[1] = 200
        #expect(inbox.put(rtcp, arrival: 1))
        #expect(calls.count == 0, "RTCP has no audio either")
        var audio = event
        audio[1] = 111 | 0x80  // the marker bit does not hide the payload type
        for _ in 0..<3 { #expect(inbox.put(audio, arrival: 2)) }
        #expect(calls.count == 1, "once, for the first audio packet")
        let late = Counter()
        inbox.onFirstAudio { late.add() }
        #expect(inbox.put(audio, arrival: 3))
        #expect(late.count == 0, "a hook set after the first audio packet never runs")
        #expect(inbox.take().count == 6)
        #expect(inbox.take().isEmpty)
    }

    @Test func aFullInboxDropsInsteadOfGrowing() {
        let inbox = CallReceiveInbox(audioPayloadType: 111)
        let datagram: [UInt8] = [0x80, 111, 0, 1]
        let accepted = (0..<(CallReceiveInbox.capacity + 5)).filter { _ in inbox.put(datagram, arrival: 1) }.count
        #expect(accepted == CallReceiveInbox.capacity)
        #expect(inbox.take().count == CallReceiveInbox.capacity)
        #expect(inbox.put(datagram, arrival: 2), "room again once the clock took them")
    }
}
