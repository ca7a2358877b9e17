@testable import AudioPipe
import Foundation
import Testing

extension CallMediaTests {
    /// Refusals and failures: each ends cleanly with one typed `MediaFailure`.
    @Suite struct Failures {
        @Test("A tampered fingerprint fails the side that checks it", arguments: ["offer", "answer"])
        func fingerprintMismatch(tampered: String) async throws {
            let pair = try await CallPair.connect(
                tamperOffer: { tampered == "offer" ? CallMediaTestSupport.tamperingFingerprint($0) : $0 },
                tamperAnswer: { tampered == "answer" ? CallMediaTestSupport.tamperingFingerprint($0) : $0 })
            defer { pair.close() }
            // The offer's fingerprint is checked by the answerer, the answer's by the offerer.
            let checker = tampered == "offer" ? pair.answererLog : pair.offererLog
            #expect(await checker.wait(for: .failed(.dtlsFingerprintMismatch)))
            #expect(checker.failures == [.dtlsFingerprintMismatch])
            #expect(!checker.events.contains { if case .dtlsConnected = $0 { true } else { false } })
            #expect(!checker.events.contains(.firstAudioDecoded))
            pair.close()
            #expect(await pair.offererLog.wait(for: .closed))
            #expect(await pair.answererLog.wait(for: .closed))
            #expect(pair.offererSink.isClosed && pair.answererSink.isClosed)
        }

        @Test("An unreachable remote candidate fails with the ICE error, and a new call works afterwards")
        func unreachableCandidate() async throws {
            let configuration = CallMediaTestSupport.configuration(connectTimeout: 2)
            let closedPort = ICETestSupport.closedUDPPort()
            let offerer = CallMedia(configuration: configuration, source: SilenceSource(), sink: NullSink())
            let answerer = CallMedia(configuration: configuration, source: SilenceSource(), sink: NullSink())
            let log = CallEventLog(answerer)
            let offer = try await offerer.makeOffer()
            _ = try await answerer.answer(offer: CallMediaTestSupport.redirectingCandidates(offer, to: closedPort))
            // The offerer never learns the answer, so nobody can reach the answerer's checks' target.
            #expect(await log.wait(for: .failed(.iceFailed), timeout: 20))
            #expect(log.failures == [.iceFailed])
            answerer.close()
            offerer.close()
            #expect(await log.wait(for: .closed))
            #expect(throws: CallMediaError.invalidState("sendDTMF(_:) needs negotiated, running call media")) {
                try answerer.sendDTMF("1")
            }

            let pair = try await CallPair.connect()
            defer { pair.close() }
            #expect(await pair.waitForAudio())
        }

        @Test("No common codec: answer(offer:) throws \"No common codecs\" and reports it")
        func noCommonCodec() async throws {
            let offerer = CallMedia(configuration: CallMediaTestSupport.configuration(codecs: [.opus]),
                                    source: SilenceSource(), sink: NullSink())
            let answerer = CallMedia(configuration: CallMediaTestSupport.configuration(codecs: [.pcmu, .pcma]),
                                     source: SilenceSource(), sink: NullSink())
            defer {
                offerer.close()
                answerer.close()
            }
            let log = CallEventLog(answerer)
            let offer = try await offerer.makeOffer()
            let error = await #expect(throws: CallMediaError.self) { try await answerer.answer(offer: offer) }
            #expect(error == .negotiation(.noCommonCodecs))
            #expect(error?.description == "No common codecs")
            #expect(error?.failure == .sdpRefused(.noCommonCodecs))
            #expect(await log.wait(for: .failed(.sdpRefused(.noCommonCodecs))))
        }

        @Test("Methods called out of order throw invalidState")
        func outOfOrder() async throws {
            let call = CallMedia(configuration: CallMediaTestSupport.configuration(), source: SilenceSource(), sink: NullSink())
            await #expect(throws: CallMediaError.self) { try await call.applyAnswer("v=0\r\n") }
            #expect(throws: CallMediaError.self) { try call.sendDTMF("1") }
            _ = try await call.makeOffer()
            await #expect(throws: CallMediaError.self) { try await call.makeOffer() }
            await #expect(throws: CallMediaError.self) { try await call.answer(offer: "v=0\r\n") }
            call.close()
            await #expect(throws: CallMediaError.self) { try await call.makeOffer() }
            #expect(call.statistics().packetsSent == 0)
        }

        @Test("A malformed answer fails the call with a clear error")
        func malformedAnswer() async throws {
            let call = CallMedia(configuration: CallMediaTestSupport.configuration(), source: SilenceSource(), sink: NullSink())
            defer { call.close() }
            let log = CallEventLog(call)
            _ = try await call.makeOffer()
            let error = await #expect(throws: CallMediaError.self) { try await call.applyAnswer("this is not SDP") }
            if case .negotiation(.malformed) = error {} else { Issue.record("unexpected \(String(describing: error))") }
            #expect(await log.first { if case .failed = $0 { true } else { false } } != nil)
        }

        @Test("An invalid configuration is refused before anything starts")
        func invalidConfiguration() async throws {
            var configuration = CallMediaTestSupport.configuration()
            configuration.codecs = []
            let call = CallMedia(configuration: configuration, source: SilenceSource(), sink: NullSink())
            defer { call.close() }
            await #expect(throws: CallMediaError.invalidConfiguration("codecs must not be empty")) { try await call.makeOffer() }
        }
    }
}
