@testable import AudioPipe
import Foundation
import MainLoop
import Testing

/// The call's DTLS-SRTP stack (`CallMediaTransport`: DTLS handshake and timers, fingerprint
/// check, SRTP keying, RFC 7983 demultiplexing, the receive path into the jitter buffer) over a
/// plain UDP `DatagramTransport`: no libnice involved.
@Suite struct CallMediaTransportOverUDPTests {
    /// What one end's handlers saw (called on the loop thread, read by the test), and the receive
    /// path DTLS handed over, which the test drives in place of a media clock (`drainReceiver`).
    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var srtpSender: SRTPSender?
        private var mediaReceiver: CallMediaReceiver?
        private var failureList: [MediaFailure] = []
        private var eventList: [CallMediaEvent] = []
        private var peerClosedCount = 0

        func record(_ failure: MediaFailure) { lock.withLock { failureList.append(failure) } }
        func record(_ event: CallMediaEvent) { lock.withLock { eventList.append(event) } }
        func ready(_ sender: sending SRTPSender, _ receiver: sending CallMediaReceiver) {
            lock.withLock {
                srtpSender = sender
                mediaReceiver = receiver
            }
        }
        /// Handles what the transport queued for the media clock, as a tick would (one thread at
        /// a time: the test's; outside the lock, since the receiver reports events here).
        func drainReceiver() { _ = lock.withLock { mediaReceiver }?.receiveQueued() }
        func peerClosed() { lock.withLock { peerClosedCount += 1 } }
        var peerCloses: Int { lock.withLock { peerClosedCount } }
        var srtp: SRTPSender? { lock.withLock { srtpSender } }
        var failures: [MediaFailure] { lock.withLock { failureList } }
        var events: [CallMediaEvent] { lock.withLock { eventList } }
    }

    /// One end: its UDP path, transport, receive state and recorder.
    @MainLoopActor
    final class End {
        let path: UDPDatagramTransport
        let receive: CallReceiveState
        let transport: CallMediaTransport
        let negotiated: NegotiatedAudio
        let recorder = Recorder()

        init(negotiated: NegotiatedAudio, configuration: CallMediaConfiguration) throws {
            self.negotiated = negotiated
            path = try UDPDatagramTransport()
            let codecs = try CallCodecSet(codec: negotiated.codec, configuration: configuration)
            receive = try CallReceiveState(codecs: codecs, jitter: configuration.jitter)
            let handlers = CallMediaTransport.Handlers(
                event: { [recorder] event in recorder.record(event) },
                failure: { [recorder] failure in recorder.record(failure) },
                mediaReady: { [recorder] sender, receiver in recorder.ready(sender, receiver) },
                peerClosed: { [recorder] in recorder.peerClosed() })
            transport = CallMediaTransport(path: path, negotiated: negotiated, receive: receive,
                                           inbox: CallReceiveInbox(audioPayloadType: negotiated.codec.payloadType),
                                           configuration: configuration, ourSSRC: 0xC0FFEE,
                                           ntpClock: NTPClock(monotonicNow: MonotonicTime.now()), handlers: handlers)
        }

        var srtp: SRTPSender? { recorder.srtp }
        var failures: [MediaFailure] { recorder.failures }
        var events: [CallMediaEvent] { recorder.events }
    }

    /// Offer and answer with placeholder ICE parameters (nothing gathers: the path is UDP).
    static func negotiate(tamperAnswer: Bool = false) throws -> (offerer: NegotiatedAudio, answerer: NegotiatedAudio) {
        let configuration = CallMediaTestSupport.configuration(codecs: [.opus])
        let offerLocal = try CallNegotiation.capabilities(
            configuration: configuration, ice: ICELocalParameters(ufrag: "offr", pwd: "offererpasswordoffererpw", candidates: []),
            ssrc: 1, cname: "offerer")
        let answerLocal = try CallNegotiation.capabilities(
            configuration: configuration, ice: ICELocalParameters(ufrag: "answ", pwd: "answererpasswordanswerpw", candidates: []),
            ssrc: 2, cname: "answerer")
        let offer = CallNegotiation.offer(offerLocal)
        let (answer, answerer) = try CallNegotiation.answer(to: offer, local: answerLocal)
        let delivered = tamperAnswer ? CallMediaTestSupport.tamperingFingerprint(answer) : answer
        return (try CallNegotiation.accept(answer: delivered, toOffer: offer), answerer)
    }

    @MainLoopActor
    static func connect(tamperAnswer: Bool = false) throws -> (End, End) {
        let configuration = CallMediaTestSupport.configuration(codecs: [.opus])
        let (offered, answered) = try negotiate(tamperAnswer: tamperAnswer)
        let offerer = try End(negotiated: offered, configuration: configuration)
        let answerer = try End(negotiated: answered, configuration: configuration)
        try offerer.transport.install()
        try answerer.transport.install()
        offerer.path.start(peer: answerer.path.port)
        answerer.path.start(peer: offerer.path.port)
        return (offerer, answerer)
    }

    @MainLoopActor
    static func shut(_ ends: End...) {
        ends.forEach { $0.transport.shutdown() }
    }

    @MainLoopActor @Test func dtlsKeysSRTPAndRTPReachesTheJitterBufferOverUDP() async throws {
        let (offerer, answerer) = try Self.connect()
        defer { Self.shut(offerer, answerer) }
        #expect(await CallMediaTestSupport.wait(timeout: 10) { offerer.srtp != nil && answerer.srtp != nil })
        #expect(offerer.events.contains { if case .dtlsConnected = $0 { true } else { false } })
        #expect(offerer.failures.isEmpty && answerer.failures.isEmpty)
        let sender = try #require(offerer.srtp)

        let payloadType = offerer.negotiated.codec.payloadType
        for sequence in UInt16(100)..<UInt16(120) {
            var packet = SRTPSessionTests.rtp(sequence: sequence, ssrc: 0xABCD_0001, payloadLength: 80)
            packet[1] = payloadType
            try sender.protectRTP(&packet)
            offerer.path.send(packet)
        }
        #expect(await CallMediaTestSupport.wait(timeout: 5) {
            answerer.recorder.drainReceiver()
            return answerer.receive.snapshot.packetsReceived == 20
        })
        #expect(answerer.receive.snapshot.bytesReceived == 20 * 80)
        #expect(answerer.events.contains(.firstPacketReceived))

        // Datagrams that are not SRTP from this key (here: plain RTP) are discarded, not played.
        var plain = SRTPSessionTests.rtp(sequence: 500, ssrc: 0xABCD_0001)
        plain[1] = payloadType
        offerer.path.send(plain)
        #expect(await CallMediaTestSupport.wait(timeout: 5) {
            answerer.recorder.drainReceiver()
            return answerer.receive.snapshot.packetsDiscarded >= 1
        })
        #expect(answerer.receive.snapshot.packetsReceived == 20)
    }

    /// Issue 8: a peer's close_notify is not just logged: the transport reports it once, and
    /// neither a failure nor a media timeout follows.
    @MainLoopActor @Test func aPeersCloseNotifyIsReportedOnce() async throws {
        let (offerer, answerer) = try Self.connect()
        defer { Self.shut(offerer, answerer) }
        #expect(await CallMediaTestSupport.wait(timeout: 10) { offerer.srtp != nil && answerer.srtp != nil })
        #expect(offerer.recorder.peerCloses == 0)
        answerer.transport.shutdown()  // sends close_notify
        #expect(await CallMediaTestSupport.wait(timeout: 5) { offerer.recorder.peerCloses == 1 })
        try await Task.sleep(for: .milliseconds(200))
        #expect(offerer.recorder.peerCloses == 1)
        #expect(offerer.failures.isEmpty)
        #expect(!offerer.events.contains(.mediaTimeout))
    }

    @MainLoopActor @Test func aTamperedFingerprintFailsWithATypedFailureOverUDP() async throws {
        let (offerer, answerer) = try Self.connect(tamperAnswer: true)
        defer { Self.shut(offerer, answerer) }
        // The offerer checks the answer's fingerprint.
        #expect(await CallMediaTestSupport.wait(timeout: 10) { !offerer.failures.isEmpty })
        #expect(offerer.failures == [.dtlsFingerprintMismatch])
        #expect(offerer.srtp == nil)
    }
}
