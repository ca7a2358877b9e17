/// Our SDP offer for an outgoing call: `m=audio` with our codecs on payload types 111 (Opus),
/// 0 (PCMU), 8 (PCMA) and 101 (telephone-event/8000), `setup:actpass`, `rtcp-mux`, `mid` "0"
/// in a BUNDLE group, and the configured direction (normally sendrecv).
public func makeOffer(_ local: LocalAudioCapabilities, sessionId: UInt64, version: UInt64) -> String {
    var payloads: [(UInt8, LocalPayload)] = local.codecs.map { ($0.offerPayloadType, .codec($0)) }
    if local.telephoneEvents { payloads.append((101, .telephoneEvent(clockRate: 8_000))) }
    let audio = LocalAudioSectionWriter(local: local).audioSection(
        payloads: payloads, transportProtocol: "UDP/TLS/RTP/SAVPF", setup: .actpass, mid: "0",
        direction: local.direction, rtcpMux: true)
    return LocalAudioSectionWriter.session(sessionId: sessionId, version: version, bundle: ["0"], media: [audio]).serialized()
}

/// Answers a remote offer (an incoming call). Uses the first audio section with a non-zero
/// port and rejects every other section with port 0. Picks the first of OUR codecs the offer
/// has, keeping the offer's payload type numbers; adds the offer's telephone-event (preferring
/// the codec's clock rate, then 8000). DTLS: we are `active` (client) when offered actpass or
/// passive, `passive` (server) when offered active or nothing. Mirrors mid, BUNDLE and rtcp-mux;
/// the direction follows RFC 3264 (offered sendonly gets recvonly, and so on).
public func makeAnswer(to offer: String, local: LocalAudioCapabilities,
                       sessionId: UInt64 = UInt64.random(in: 1...(UInt64(1) << 62)),
                       version: UInt64 = 1) throws(SDPNegotiationError) -> (sdp: String, negotiated: NegotiatedAudio) {
    let session = try parseForNegotiation(offer)
    guard let audio = try readAudio(AudioMediaDescription.firstAudio(in: session)) else { throw .noAudioMedia }
    let credentials = try RemoteTransportCredentials(checking: audio)
    var chosen: (AudioCodecKind, RTPPayloadFormat)?
    for kind in local.codecs {
        if let format = audio.formats.first(where: { AudioCodecKind(format: $0) == kind }) {
            chosen = (kind, format)
            break
        }
    }
    guard let (kind, format) = chosen else { throw .noCommonCodecs }
    let telephoneEvent = local.telephoneEvents ? preferredTelephoneEvent(in: audio.formats, clockRate: kind.clockRate) : nil
    let role: DTLSRole = audio.setup == .active || audio.setup == nil ? .server : .client
    let direction = audio.direction.answer(wanting: local.direction)

    var payloads: [(UInt8, LocalPayload)] = [(format.payloadType, .codec(kind))]
    if let telephoneEvent { payloads.append((telephoneEvent.payloadType, .telephoneEvent(clockRate: telephoneEvent.clockRate))) }
    let ours = LocalAudioSectionWriter(local: local).audioSection(
        payloads: payloads, transportProtocol: audio.transportProtocol, setup: role == .client ? .active : .passive,
        mid: audio.mid, direction: direction, rtcpMux: audio.rtcpMux)
    let media = session.media.indices.map { index in
        index == audio.mediaIndex ? ours : LocalAudioSectionWriter.rejected(session.media[index])
    }
    let bundle = audio.bundleGroup != nil ? audio.mid.map { [$0] } : nil
    let answer = LocalAudioSectionWriter.session(sessionId: sessionId, version: version, bundle: bundle, media: media)
    let negotiated = NegotiatedAudio(codec: AudioCodec(kind: kind, format: format), telephoneEvent: telephoneEvent,
                                     remote: audio, credentials: credentials, dtlsRole: role,
                                     rtcpMux: audio.rtcpMux, localDirection: direction)
    return (answer.serialized(), negotiated)
}

/// Applies the remote answer to our offer (an outgoing call). The codec is the first payload
/// type of the answer's audio section that is one of our codecs and was in our offer; its
/// payload type number is the ANSWER's. DTLS: answer `active` (or no setup) makes us the
/// server, `passive` the client; `actpass` and `holdconn` are refused.
public func applyAnswer(_ answer: String, toOffer offer: String) throws(SDPNegotiationError) -> NegotiatedAudio {
    let offerSession = try parseForNegotiation(offer)
    guard let ours = try readAudio(AudioMediaDescription.firstAudio(in: offerSession)) else { throw .noAudioMedia }
    let answerSession = try parseForNegotiation(answer)
    guard answerSession.media.count == offerSession.media.count else {
        throw .answerMismatch("\(answerSession.media.count) media sections for \(offerSession.media.count) offered")
    }
    let section = answerSession.media[ours.mediaIndex]
    guard section.mediaType == "audio" else { throw .answerMismatch("section \(ours.mediaIndex) is \(section.mediaType), not audio") }
    guard section.port != 0 else { throw .audioRejected }
    let audio = try readAudio(AudioMediaDescription(session: answerSession, mediaIndex: ours.mediaIndex))
    if let offeredMid = ours.mid, let answeredMid = audio.mid, offeredMid != answeredMid {
        throw .answerMismatch("mid \(answeredMid) for offered \(offeredMid)")
    }
    let credentials = try RemoteTransportCredentials(checking: audio)
    let role: DTLSRole
    switch audio.setup {
    case .active, nil: role = .server
    case .passive: role = .client
    case .actpass: throw .invalidSetup("actpass")
    case .holdconn: throw .holdconnSetup
    }
    let offeredKinds = Set(ours.formats.compactMap(AudioCodecKind.init(format:)))
    guard let format = audio.formats.first(where: { AudioCodecKind(format: $0).map(offeredKinds.contains) ?? false }),
          let kind = AudioCodecKind(format: format) else { throw .noCommonCodecs }
    let offeredEvents = ours.formats.contains(where: \.isTelephoneEvent)
    let telephoneEvent = offeredEvents ? preferredTelephoneEvent(in: audio.formats, clockRate: kind.clockRate) : nil
    let localDirection = MediaDirection(sends: audio.direction.receives && ours.direction.sends,
                                        receives: audio.direction.sends && ours.direction.receives)
    return NegotiatedAudio(codec: AudioCodec(kind: kind, format: format), telephoneEvent: telephoneEvent,
                           remote: audio, credentials: credentials, dtlsRole: role,
                           rtcpMux: audio.rtcpMux && ours.rtcpMux, localDirection: localDirection)
}

/// The telephone-event format to use: the one at the codec's clock rate, else 8000, else any.
private func preferredTelephoneEvent(in formats: [RTPPayloadFormat], clockRate: Int) -> RTPPayloadFormat? {
    let events = formats.filter(\.isTelephoneEvent)
    return events.first { $0.clockRate == clockRate } ?? events.first { $0.clockRate == 8_000 } ?? events.first
}

private func parseForNegotiation(_ text: String) throws(SDPNegotiationError) -> SessionDescription {
    do {
        return try SessionDescription(parsing: text)
    } catch {
        throw .malformed(error)
    }
}

/// Runs an audio-section read, turning its `SDPError` into `.malformed`.
private func readAudio<T>(_ read: @autoclosure () throws(SDPError) -> T) throws(SDPNegotiationError) -> T {
    do {
        return try read()
    } catch {
        throw .malformed(error)
    }
}
