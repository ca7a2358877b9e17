@testable import AudioSDP
import Testing

@Suite struct SDPAudioReadingTests {
    @Test func readsRealAiortcOffer() throws {
        let sdp = try SDPFixtures.session("aiortc-1.4-offer.sdp")
        let audio = try #require(try AudioMediaDescription.firstAudio(in: sdp))
        #expect(audio.mediaIndex == 0)
        #expect(audio.transportProtocol == "UDP/TLS/RTP/SAVPF")
        #expect(audio.payloadTypes == [96, 0, 8])
        #expect(audio.formats.map(\.encodingName) == ["opus", "PCMU", "PCMA"])
        #expect(audio.format(payloadType: 96) == RTPPayloadFormat(payloadType: 96, encodingName: "opus", clockRate: 48000, channels: 2))
        #expect(audio.direction == .sendrecv)
        #expect(audio.mid == "0")
        #expect(audio.bundleGroup == ["0"])
        #expect(audio.rtcpMux)
        #expect(audio.rtcp == RTCPAttribute(port: 9, connection: SDPConnection(addressType: "IP4", address: "0.0.0.0")))
        #expect(audio.iceUfrag?.isEmpty == false)
        #expect((audio.icePwd?.count ?? 0) >= 22)
        #expect(audio.iceLite == false)
        #expect(audio.fingerprints.count == 1)
        #expect(audio.sha256Fingerprint?.bytes.count == 32)
        #expect(audio.setup == .actpass)
        #expect(audio.candidates.count == 1)
        #expect(audio.candidates.first?.address == "127.0.0.1")
        #expect(audio.candidates.first?.port == audio.port)
        #expect(audio.candidates.first?.type == .host)
        #expect(audio.endOfCandidates)
        #expect(audio.ssrcs.count == 1 && audio.ssrcs[0].attribute == "cname")
        #expect(audio.connectionAddress == "127.0.0.1")
        #expect(audio.ptime == nil)
    }

    @Test func readsChromeOffer() throws {
        let sdp = try SDPFixtures.session("chrome-audio-video-offer.sdp")
        let audio = try #require(try AudioMediaDescription.firstAudio(in: sdp))
        #expect(audio.payloadTypes == [111, 63, 9, 0, 8, 13, 110, 126])
        #expect(audio.formats.count == 8)
        let opus = try #require(audio.format(payloadType: 111))
        #expect(opus.parameters == ["minptime": "10", "useinbandfec": "1"])
        #expect(opus.formatParameters == "minptime=10;useinbandfec=1")
        #expect(audio.format(payloadType: 63)?.parameters == ["111/111": ""])
        #expect(audio.format(payloadType: 110)?.isTelephoneEvent == true)
        #expect(audio.format(payloadType: 110)?.clockRate == 48000)
        #expect(audio.iceOptions == ["trickle"])
        #expect(audio.candidates.isEmpty)
        #expect(audio.endOfCandidates == false)
        #expect(audio.bundleGroup == ["0", "1"])
        #expect(audio.ssrcs == [SSRCAttribute(ssrc: 2973456981, attribute: "cname", value: "Hd2fQk1vS0pLx7mE"),
                                SSRCAttribute(ssrc: 2973456981, attribute: "msid", value: "5f1d7c2a-stream 3b9f0e11-audio")])
        #expect(throws: SDPError.self) { try AudioMediaDescription(session: sdp, mediaIndex: 1) }
        #expect(throws: SDPError.self) { try AudioMediaDescription(session: sdp, mediaIndex: 2) }
    }

    @Test func readsSipGatewayOfferWithSessionLevelFallbacks() throws {
        let sdp = try SDPFixtures.session("sip-gateway-g711-offer.sdp")
        let audio = try #require(try AudioMediaDescription.firstAudio(in: sdp))
        #expect(audio.iceLite)
        #expect(audio.mid == nil && audio.bundleGroup == nil)
        #expect(audio.direction == .sendonly)
        #expect(audio.ptime == 20 && audio.maxptime == 40)
        #expect(audio.setup == .active)
        #expect(audio.connectionAddress == "203.0.113.10")
        #expect(audio.format(payloadType: 101)?.parameters == ["0-16": ""])
        let srflx = try #require(audio.candidates.last)
        #expect(srflx.type == .serverReflexive)
        #expect(srflx.relatedAddress == "203.0.113.10" && srflx.relatedPort == 24612)
        #expect(srflx.extensions == [.init(name: "generation", value: "0")])
    }

    @Test func mediaLevelWinsOverSessionLevel() throws {
        let text = SDPFixtures.offer(
            extraSession: ["a=ice-ufrag:sess", "a=ice-pwd:sessionpasswordsessionpw", "a=setup:passive", "a=recvonly",
                           "a=fingerprint:sha-1 " + Array(repeating: "AB", count: 20).joined(separator: ":"), "a=ptime:30"],
            media: ["a=ice-ufrag:media", "a=setup:active", "a=ptime:20.0"] + SDPFixtures.standardRtpmaps)
        let audio = try #require(try AudioMediaDescription.firstAudio(in: SessionDescription(parsing: text)))
        #expect(audio.iceUfrag == "media")
        #expect(audio.icePwd == "sessionpasswordsessionpw")
        #expect(audio.setup == .active)
        #expect(audio.direction == .recvonly)
        #expect(audio.fingerprints.map(\.algorithm) == ["sha-1"])
        #expect(audio.sha256Fingerprint == nil)
        #expect(audio.ptime == 20)
    }

    @Test func staticPayloadTypesNeedNoRtpmapAndUnknownDynamicOnesAreSkipped() throws {
        let text = SDPFixtures.offer(formats: "0 8 18 97", media: [])
        let audio = try #require(try AudioMediaDescription.firstAudio(in: SessionDescription(parsing: text)))
        #expect(audio.payloadTypes == [0, 8, 18, 97])
        #expect(audio.formats.map(\.encodingName) == ["PCMU", "PCMA", "G729"])
    }

    @Test func firstAudioSkipsRejectedSections() throws {
        let text = "v=0\r\no=- 1 1 IN IP4 x\r\ns=-\r\nm=video 9 RTP/AVP 96\r\nm=audio 0 RTP/AVP 0\r\nm=audio 7000 RTP/AVP 8\r\n"
        let audio = try #require(try AudioMediaDescription.firstAudio(in: SessionDescription(parsing: text)))
        #expect(audio.mediaIndex == 2)
        #expect(try AudioMediaDescription.firstAudio(in: SessionDescription(parsing: "v=0\no=- 1 1 IN IP4 x\ns=-\n")) == nil)
    }

    static let malformed: [(String, String)] = [
        ("a=rtpmap:111 opus", "rtpmap needs"),
        ("a=rtpmap:300 opus/48000/2", "payload type 0-127"),
        ("a=rtpmap:111 opus/48000/x", "channel count"),
        ("a=fmtp:abc x=1", "payload type 0-127"),
        ("a=fingerprint:sha-256 AB:CD", "32 bytes"),
        ("a=fingerprint:sha-256 ZZ:" + Array(repeating: "00", count: 31).joined(separator: ":"), "not a hex byte"),
        ("a=fingerprint:sha-256", "expected '<hash> <hex>'"),
        ("a=setup:sometimes", "setup must be"),
        ("a=candidate:1 1 udp 2130706431 10.0.0.1 port typ host", "port is not"),
        ("a=ssrc:notanumber cname:x", "ssrc needs"),
        ("a=ptime:fast", "ptime is not"),
        ("a=rtcp:9 IN IP4", "rtcp needs"),
    ]

    @Test(arguments: malformed)
    func malformedAudioAttributesNameTheLine(line: String, reason: String) throws {
        let text = SDPFixtures.offer(media: ["a=mid:0", line])
        let sdp = try SessionDescription(parsing: text)
        let error = #expect(throws: SDPError.self) { try AudioMediaDescription(session: sdp, mediaIndex: 0) }
        #expect(error?.line == 8)
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func fingerprintFormatsAndParses() throws {
        let fingerprint = try SDPFingerprint(parsing: "SHA-256 " + (0..<32).map { _ in "0a" }.joined(separator: ":"))
        #expect(fingerprint.algorithm == "sha-256")
        #expect(fingerprint.bytes == Array(repeating: 10, count: 32))
        #expect(fingerprint.description == "sha-256 " + Array(repeating: "0A", count: 32).joined(separator: ":"))
        #expect(try SDPFingerprint(parsing: "sha-1 01:02:03").bytes == [1, 2, 3])
    }

    @Test func directionAnswerTable() {
        let table: [(MediaDirection, MediaDirection, MediaDirection)] = [
            (.sendrecv, .sendrecv, .sendrecv), (.sendonly, .sendrecv, .recvonly), (.recvonly, .sendrecv, .sendonly),
            (.inactive, .sendrecv, .inactive), (.sendrecv, .recvonly, .recvonly), (.sendrecv, .sendonly, .sendonly),
            (.sendonly, .sendonly, .inactive), (.recvonly, .inactive, .inactive),
        ]
        for (offered, wanted, expected) in table {
            #expect(offered.answer(wanting: wanted) == expected, "\(offered) wanting \(wanted)")
        }
        #expect(MediaDirection.allCases.map(\.reversed) == [.sendrecv, .recvonly, .sendonly, .inactive])
    }
}

@Suite struct SDPLaxInputTests {
    @Test func trailingSpacesAroundAttributeNamesAreTolerated() throws {
        let text = SDPFixtures.offer(media: ["a=sendonly ", "a=mid:0", "a=rtcp-mux "])
        let sdp = try SessionDescription(parsing: text)
        let audio = try #require(try AudioMediaDescription.firstAudio(in: sdp))
        #expect(audio.direction == .sendonly && audio.rtcpMux)
        #expect(sdp.serialized() == text)
    }
}
