@testable import AudioSDP
import Testing

@Suite struct SDPApplyAnswerTests {
    private let offer = makeOffer(SDPFixtures.local(), sessionId: 99, version: 1)

    /// An answer to our offer with the given formats, setup and extra lines (mid 0 unless given).
    private func answer(formats: String, setup: String = "active", port: Int = 9, lines: [String] = ["a=mid:0"]) -> String {
        SDPFixtures.offer(formats: formats, extraSession: ["a=group:BUNDLE 0"], media: SDPFixtures.transport(setup: setup) + lines)
            .replacingOccurrences(of: "m=audio 9 ", with: "m=audio \(port) ")
    }

    @Test func realAiortcAnswerToItsOffer() throws {
        let negotiated = try applyAnswer(SDPFixtures.text("aiortc-1.4-answer.sdp"), toOffer: SDPFixtures.text("aiortc-1.4-offer.sdp"))
        #expect(negotiated.codec.kind == .opus && negotiated.codec.payloadType == 96)
        #expect(negotiated.dtlsRole == .server)
        #expect(negotiated.remoteDirection == .recvonly && negotiated.localDirection == .sendonly)
        #expect(negotiated.remoteCandidates.count == 1)
        #expect(negotiated.mid == "0")
        #expect(negotiated.rtcpMux)
    }

    @Test func codecIsTheAnswersFirstOneWeOffered() throws {
        let table: [(String, [String], AudioCodec, UInt8?)] = [
            ("8 0 101", ["a=rtpmap:101 telephone-event/8000"], .pcma(payloadType: 8), 101),
            ("18 0", [], .pcmu(payloadType: 0), nil),
            ("109 0", ["a=rtpmap:109 opus/48000/2", "a=fmtp:109 useinbandfec=1;usedtx=1"],
             .opus(payloadType: 109, parameters: OpusParameters(parameters: ["useinbandfec": "1", "usedtx": "1"])), nil),
        ]
        for (formats, lines, codec, eventPT) in table {
            let negotiated = try applyAnswer(answer(formats: formats, lines: ["a=mid:0"] + lines), toOffer: offer)
            #expect(negotiated.codec == codec, "\(formats)")
            #expect(negotiated.telephoneEventPT == eventPT)
        }
    }

    @Test(arguments: [("active", DTLSRole.server), ("passive", .client), ("", .server)])
    func dtlsRoleFromAnswer(setup: String, role: DTLSRole) throws {
        var text = answer(formats: "111", setup: setup, lines: ["a=mid:0", "a=rtpmap:111 opus/48000/2"])
        if setup.isEmpty { text = text.replacingOccurrences(of: "a=setup:\r\n", with: "") }
        #expect(try applyAnswer(text, toOffer: offer).dtlsRole == role)
    }

    @Test func refusals() {
        let cases: [(String, SDPNegotiationError)] = [
            (answer(formats: "0", setup: "actpass"), .invalidSetup("actpass")),
            (answer(formats: "0", setup: "holdconn"), .holdconnSetup),
            (answer(formats: "0", port: 0), .audioRejected),
            (answer(formats: "0", lines: ["a=mid:audio"]), .answerMismatch("mid audio for offered 0")),
            (answer(formats: "18 9"), .noCommonCodecs),
            (answer(formats: "0").replacingOccurrences(of: "a=fingerprint", with: "a=x-fingerprint"), .missingFingerprint),
            (answer(formats: "0") + "m=video 0 RTP/AVP 96\r\n", .answerMismatch("2 media sections for 1 offered")),
            ("v=0\r\n", .malformed(SDPError(line: 2, text: "", reason: "missing o= line"))),
        ]
        for (text, expected) in cases {
            #expect(throws: expected) { try applyAnswer(text, toOffer: self.offer) }
        }
        #expect(throws: SDPNegotiationError.noAudioMedia) {
            try applyAnswer(self.answer(formats: "0"), toOffer: "v=0\r\no=- 1 1 IN IP4 x\r\ns=-\r\n")
        }
    }
}
