@testable import AudioSDP
import Testing

@Suite struct SDPAnswerTests {
    /// Our answer parsed back: the whole description and its first audio section.
    private func parsedAnswer(_ sdp: String) throws -> (SessionDescription, AudioMediaDescription) {
        let session = try SessionDescription(parsing: sdp)
        return (session, try #require(try AudioMediaDescription.firstAudio(in: session)))
    }

    @Test func answersTheRealAiortcOffer() throws {
        let offer = try SDPFixtures.text("aiortc-1.4-offer.sdp")
        let (sdp, negotiated) = try makeAnswer(to: offer, local: SDPFixtures.local(), sessionId: 5, version: 1)
        let remote = try #require(try AudioMediaDescription.firstAudio(in: SessionDescription(parsing: offer)))
        #expect(negotiated.codec == .opus(payloadType: 96, parameters: OpusParameters(parameters: [:])))
        #expect(negotiated.telephoneEventPT == nil)
        #expect(negotiated.dtlsRole == .client)
        #expect(negotiated.remoteIceUfrag == remote.iceUfrag && negotiated.remoteIcePwd == remote.icePwd)
        #expect(negotiated.remoteFingerprint == remote.sha256Fingerprint)
        #expect(negotiated.remoteCandidates == remote.candidates)
        #expect(!negotiated.remoteIceLite)
        #expect(negotiated.rtcpMux)
        #expect(negotiated.remoteDirection == .sendrecv && negotiated.localDirection == .sendrecv)
        #expect(negotiated.mid == "0")
        #expect(negotiated.remoteSSRC == remote.ssrcs.first?.ssrc)

        let (session, audio) = try parsedAnswer(sdp)
        #expect(session.bundleGroups == [["0"]])
        #expect(session.media.count == 1)
        #expect(audio.payloadTypes == [96])
        #expect(audio.format(payloadType: 96)?.matches("opus", clockRate: 48000) == true)
        #expect(audio.setup == .active)
        #expect(audio.mid == "0" && audio.rtcpMux && audio.direction == .sendrecv)
        #expect(audio.iceUfrag == "wcsA" && audio.sha256Fingerprint == SDPFixtures.ourFingerprint)
        #expect(audio.transportProtocol == "UDP/TLS/RTP/SAVPF")
    }

    @Test func answersChromeOfferRejectingVideo() throws {
        let offer = try SDPFixtures.text("chrome-audio-video-offer.sdp")
        let (sdp, negotiated) = try makeAnswer(to: offer, local: SDPFixtures.local())
        guard case .opus(let pt, let parameters) = negotiated.codec else { Issue.record("not opus"); return }
        #expect(pt == 111)
        #expect(parameters.useInbandFEC && parameters.minPtime == 10 && !parameters.stereo && !parameters.useDTX)
        #expect(negotiated.telephoneEventPT == 110 && negotiated.telephoneEventClockRate == 48000)
        #expect(negotiated.remoteSSRC == 2973456981)
        let (session, audio) = try parsedAnswer(sdp)
        #expect(session.media.count == 2)
        #expect(session.media[1].mediaLineValue == "video 0 UDP/TLS/RTP/SAVPF 96")
        #expect(session.media[1].mid == "1")
        #expect(session.media[1].hasAttribute(named: "inactive"))
        #expect(session.bundleGroups == [["0"]])
        #expect(audio.payloadTypes == [111, 110])
        #expect(audio.format(payloadType: 110)?.clockRate == 48000)
        #expect(audio.format(payloadType: 110)?.formatParameters == "0-16")
        #expect(audio.format(payloadType: 111)?.formatParameters == "minptime=10;useinbandfec=1")
    }

    @Test func ourCodecPreferenceDecidesAndOfferPayloadTypesAreKept() throws {
        let offer = try SDPFixtures.text("chrome-audio-video-offer.sdp")
        let table: [([AudioCodecKind], AudioCodec, UInt8)] = [
            ([.pcma, .pcmu, .opus], .pcma(payloadType: 8), 126),
            ([.pcmu], .pcmu(payloadType: 0), 126),
        ]
        for (codecs, expected, eventPT) in table {
            let (sdp, negotiated) = try makeAnswer(to: offer, local: SDPFixtures.local(codecs: codecs))
            #expect(negotiated.codec == expected)
            #expect(negotiated.telephoneEventPT == eventPT && negotiated.telephoneEventClockRate == 8000)
            #expect(try parsedAnswer(sdp).1.payloadTypes == [expected.payloadType, eventPT])
        }
    }

    @Test func renumberedPayloadTypesOfTheOfferAreUsed() throws {
        let offer = SDPFixtures.offer(formats: "109 9 0 120", media: SDPFixtures.transport() + [
            "a=rtpmap:109 OPUS/48000/2", "a=fmtp:109 stereo=1; sprop-stereo=1;maxplaybackrate=16000;maxaveragebitrate=20000;cbr=1",
            "a=rtpmap:9 G722/8000", "a=rtpmap:120 telephone-event/8000",
        ])
        let (_, negotiated) = try makeAnswer(to: offer, local: SDPFixtures.local())
        guard case .opus(109, let parameters) = negotiated.codec else { Issue.record("\(negotiated.codec)"); return }
        #expect(parameters.stereo && parameters.spropStereo && parameters.constantBitrate && !parameters.useInbandFEC)
        #expect(parameters.maxPlaybackRate == 16000 && parameters.maxAverageBitrate == 20000)
        #expect(negotiated.telephoneEventPT == 120)
        #expect(negotiated.codec.clockRate == 48000 && negotiated.codec.channels == 2)
    }

    @Test func answersSipGatewayOffer() throws {
        let offer = try SDPFixtures.text("sip-gateway-g711-offer.sdp")
        let (sdp, negotiated) = try makeAnswer(to: offer, local: SDPFixtures.local())
        #expect(negotiated.codec == .pcmu(payloadType: 0))
        #expect(negotiated.telephoneEventPT == 101)
        #expect(negotiated.dtlsRole == .server)
        #expect(negotiated.remoteIceLite)
        #expect(negotiated.remoteDirection == .sendonly && negotiated.localDirection == .recvonly)
        #expect(negotiated.remotePtime == 20 && negotiated.remoteMaxPtime == 40)
        #expect(negotiated.mid == nil)
        #expect(negotiated.remoteCandidates.count == 2)
        let (session, audio) = try parsedAnswer(sdp)
        #expect(session.bundleGroups.isEmpty)
        #expect(audio.mid == nil)
        #expect(audio.setup == .passive)
        #expect(audio.direction == .recvonly)
        #expect(audio.payloadTypes == [0, 101])
    }

    @Test(arguments: [("actpass", DTLSRole.client, DTLSSetup.active), ("passive", .client, .active),
                      ("active", .server, .passive), ("", .server, .passive)])
    func dtlsRoleTable(offered: String, role: DTLSRole, answered: DTLSSetup) throws {
        var transport = SDPFixtures.transport(setup: offered)
        if offered.isEmpty { transport.removeAll { $0.hasPrefix("a=setup") } }
        let offer = SDPFixtures.offer(media: transport + SDPFixtures.standardRtpmaps)
        let (sdp, negotiated) = try makeAnswer(to: offer, local: SDPFixtures.local())
        #expect(negotiated.dtlsRole == role)
        #expect(try parsedAnswer(sdp).1.setup == answered)
    }

    @Test(arguments: [(MediaDirection.sendrecv, MediaDirection.sendrecv, MediaDirection.sendrecv),
                      (.sendonly, .sendrecv, .recvonly), (.recvonly, .sendrecv, .sendonly), (.inactive, .sendrecv, .inactive),
                      (.sendrecv, .recvonly, .recvonly), (.recvonly, .recvonly, .inactive)])
    func directionTable(offered: MediaDirection, wanted: MediaDirection, answered: MediaDirection) throws {
        let offer = SDPFixtures.offer(media: SDPFixtures.transport() + SDPFixtures.standardRtpmaps + ["a=\(offered.rawValue)"])
        let (sdp, negotiated) = try makeAnswer(to: offer, local: SDPFixtures.local(direction: wanted))
        #expect(negotiated.remoteDirection == offered)
        #expect(negotiated.localDirection == answered)
        #expect(try parsedAnswer(sdp).1.direction == answered)
    }

    @Test func rtcpMuxIsMirrored() throws {
        var transport = SDPFixtures.transport()
        transport.removeAll { $0 == "a=rtcp-mux" }
        let offer = SDPFixtures.offer(media: transport + SDPFixtures.standardRtpmaps)
        let (sdp, negotiated) = try makeAnswer(to: offer, local: SDPFixtures.local())
        #expect(!negotiated.rtcpMux)
        #expect(try !parsedAnswer(sdp).1.rtcpMux)
    }

    @Test func telephoneEventsCanBeDisabled() throws {
        var local = SDPFixtures.local()
        local.telephoneEvents = false
        let offer = try SDPFixtures.text("sip-gateway-g711-offer.sdp")
        let (sdp, negotiated) = try makeAnswer(to: offer, local: local)
        #expect(negotiated.telephoneEventPT == nil)
        #expect(try parsedAnswer(sdp).1.payloadTypes == [0])
    }

    @Test func otherSectionsAreRejectedAndTheFirstLiveAudioIsUsed() throws {
        let text = [
            "v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE d a1 a2",
            "m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 0.0.0.0", "a=mid:d",
            "m=audio 0 UDP/TLS/RTP/SAVPF 0", "c=IN IP4 0.0.0.0", "a=mid:a0",
            "m=audio 9 UDP/TLS/RTP/SAVPF 8 0", "c=IN IP4 0.0.0.0", "a=mid:a1",
        ].joined(separator: "\r\n") + "\r\n" + SDPFixtures.transport().joined(separator: "\r\n")
            + "\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\nc=IN IP4 0.0.0.0\r\na=mid:a2\r\n"
        let (sdp, negotiated) = try makeAnswer(to: text, local: SDPFixtures.local())
        #expect(negotiated.codec == .pcmu(payloadType: 0))
        #expect(negotiated.mid == "a1")
        let session = try SessionDescription(parsing: sdp)
        #expect(session.media.map(\.port) == [0, 0, 9, 0])
        #expect(session.media[0].mediaLineValue == "application 0 UDP/DTLS/SCTP webrtc-datachannel")
        #expect(!session.media[0].hasAttribute(named: "inactive"))
        #expect(session.media.map(\.mid) == ["d", "a0", "a1", "a2"])
        #expect(session.bundleGroups == [["a1"]])
    }
}
