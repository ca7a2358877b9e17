@testable import AudioSDP
import Testing

@Suite struct SDPOfferTests {
    @Test func defaultOfferIsExactlyAsSpecified() {
        let local = SDPFixtures.local()
        let expected = [
            "v=0", "o=- 42 1 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111 0 8 101", "c=IN IP4 0.0.0.0", "a=rtcp:9 IN IP4 0.0.0.0",
            "a=ice-ufrag:wcsA", "a=ice-pwd:0123456789abcdefghijkl", "a=fingerprint:\(SDPFixtures.ourFingerprint)",
            "a=setup:actpass", "a=mid:0", "a=sendrecv", "a=rtcp-mux",
            "a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10;useinbandfec=1",
            "a=rtpmap:0 PCMU/8000", "a=rtpmap:8 PCMA/8000",
            "a=rtpmap:101 telephone-event/8000", "a=fmtp:101 0-16",
        ].joined(separator: "\r\n") + "\r\n"
        #expect(makeOffer(local, sessionId: 42, version: 1) == expected)
    }

    @Test func offerReadsBackAsItsOwnAudioDescription() throws {
        var local = SDPFixtures.local()
        local.opusDTX = true
        local.ssrc = 0xDEADBEEF
        local.cname = "agent-1"
        let offer = makeOffer(local, sessionId: 7, version: 3)
        let sdp = try SessionDescription(parsing: offer)
        #expect(sdp.origin.sessionId == "7" && sdp.origin.sessionVersion == "3")
        let audio = try #require(try AudioMediaDescription.firstAudio(in: sdp))
        #expect(audio.payloadTypes == [111, 0, 8, 101])
        #expect(audio.format(payloadType: 111)?.parameters == ["minptime": "10", "useinbandfec": "1", "usedtx": "1"])
        #expect(audio.setup == .actpass)
        #expect(audio.iceUfrag == "wcsA" && audio.icePwd == "0123456789abcdefghijkl")
        #expect(audio.sha256Fingerprint == SDPFixtures.ourFingerprint)
        #expect(audio.ssrcs == [SSRCAttribute(ssrc: 0xDEADBEEF, attribute: "cname", value: "agent-1")])
        #expect(audio.candidates.isEmpty && !audio.endOfCandidates)
    }

    @Test func offerWithCandidatesUsesTheFirstRTPCandidateAsDefault() throws {
        var local = SDPFixtures.local(codecs: [.pcmu])
        local.telephoneEvents = false
        local.candidates = [
            ICECandidateLine(foundation: "2", component: 2, priority: 2130706430, address: "192.0.2.5", port: 40001, type: .host),
            ICECandidateLine(foundation: "1", component: 1, priority: 2130706431, address: "192.0.2.5", port: 40000, type: .host),
            ICECandidateLine(foundation: "3", component: 1, priority: 100, address: "2001:db8::5", port: 40002, type: .host),
        ]
        local.includeCandidates = true
        let sdp = try SessionDescription(parsing: makeOffer(local, sessionId: 1, version: 1))
        let audio = try #require(try AudioMediaDescription.firstAudio(in: sdp))
        #expect(audio.payloadTypes == [0])
        #expect(audio.port == 40000)
        #expect(audio.connectionAddress == "192.0.2.5")
        #expect(audio.rtcp?.port == 40000)
        #expect(audio.candidates == local.candidates)
        #expect(audio.endOfCandidates)

        local.includeCandidates = false
        let without = try #require(try AudioMediaDescription.firstAudio(in: SessionDescription(parsing: makeOffer(local, sessionId: 1, version: 1))))
        #expect(without.candidates.isEmpty && without.port == 9)
    }

    @Test func offerDirectionFollowsConfiguration() throws {
        let offer = makeOffer(SDPFixtures.local(direction: .recvonly), sessionId: 1, version: 1)
        #expect(try AudioMediaDescription.firstAudio(in: SessionDescription(parsing: offer))?.direction == .recvonly)
    }
}
