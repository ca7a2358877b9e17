@testable import AudioSDP
import Testing

@Suite struct SDPRefusalTests {
    private func refusal(_ offer: String) -> SDPNegotiationError? {
        #expect(throws: SDPNegotiationError.self) { try makeAnswer(to: offer, local: SDPFixtures.local()) }
    }

    @Test func g729OnlyOfferHasNoCommonCodecs() throws {
        let error = refusal(try SDPFixtures.text("g729-only-offer.sdp"))
        #expect(error == .noCommonCodecs)
        #expect(error?.description == "No common codecs")
    }

    @Test func plainSipOfferHasNoDTLS() throws {
        let error = refusal(try SDPFixtures.text("sip-plain-rtpavp-offer.sdp"))
        #expect(error == .noDTLS(transportProtocol: "RTP/AVP"))
        #expect(error?.description == "no DTLS: RTP/AVP without a fingerprint")
    }

    @Test func offerWithoutAudio() {
        let offer = "v=0\r\no=- 1 1 IN IP4 x\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\nm=audio 0 RTP/AVP 0\r\n"
        let error = refusal(offer)
        #expect(error == .noAudioMedia)
        #expect(error?.description == "no audio m-line")
    }

    @Test func missingIceCredentials() {
        for dropped in ["a=ice-ufrag", "a=ice-pwd"] {
            let media = SDPFixtures.transport().filter { !$0.hasPrefix(dropped) } + SDPFixtures.standardRtpmaps
            let error = refusal(SDPFixtures.offer(media: media))
            #expect(error == .missingICECredentials)
            #expect(error?.description == "missing ice-ufrag/ice-pwd")
        }
    }

    @Test func fingerprintRefusals() {
        let withoutFingerprint = SDPFixtures.transport().filter { !$0.hasPrefix("a=fingerprint") } + SDPFixtures.standardRtpmaps
        #expect(refusal(SDPFixtures.offer(media: withoutFingerprint)) == .missingFingerprint)

        let sha1 = "a=fingerprint:sha-1 " + Array(repeating: "AB", count: 20).joined(separator: ":")
        let sha512 = "a=fingerprint:sha-512 " + Array(repeating: "CD", count: 64).joined(separator: ":")
        let error = refusal(SDPFixtures.offer(media: withoutFingerprint + [sha1, sha512]))
        #expect(error == .noSHA256Fingerprint(offered: ["sha-1", "sha-512"]))
        #expect(error?.description == "no sha-256 fingerprint (found sha-1, sha-512)")

        // A SHA-256 next to other hashes is fine.
        let mixed = SDPFixtures.offer(media: [sha1] + SDPFixtures.transport() + SDPFixtures.standardRtpmaps)
        #expect(throws: Never.self) { try makeAnswer(to: mixed, local: SDPFixtures.local()) }
    }

    @Test func holdconnIsRefused() {
        let error = refusal(SDPFixtures.offer(media: SDPFixtures.transport(setup: "holdconn") + SDPFixtures.standardRtpmaps))
        #expect(error == .holdconnSetup)
    }

    @Test func malformedOffersNameTheLine() {
        guard case .malformed(let error) = refusal("v=0\r\no=- 1 1 IN IP4 x\r\ns=-\r\nthis is not sdp\r\n") else {
            Issue.record("expected .malformed")
            return
        }
        #expect(error.line == 4)

        let badRtpmap = SDPFixtures.offer(media: SDPFixtures.transport() + ["a=rtpmap:111 opus"])
        guard case .malformed(let rtpmapError) = refusal(badRtpmap) else {
            Issue.record("expected .malformed")
            return
        }
        #expect(rtpmapError.line == 12)
        #expect(rtpmapError.description.hasPrefix("SDP line 12: rtpmap needs"))
    }
}
