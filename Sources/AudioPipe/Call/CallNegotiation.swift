import AudioSDP
/// The SDP side of a call: our capabilities from the ICE parameters and the DTLS certificate,
/// and the offer/answer functions of the SDP layer (reached through this type, because
/// `CallMedia`'s own `makeOffer`/`applyAnswer` methods hide the global functions).
enum CallNegotiation {
    /// Our capabilities for the SDP.
    static func capabilities(configuration: CallMediaConfiguration, ice: ICELocalParameters, ssrc: UInt32,
                             cname: String) throws(CallMediaError) -> LocalAudioCapabilities {
        LocalAudioCapabilities(iceUfrag: ice.ufrag, icePwd: ice.pwd, fingerprint: try localFingerprint(),
                               codecs: configuration.codecs, opusDTX: configuration.opusDTX,
                               telephoneEvents: configuration.telephoneEvents, candidates: ice.candidates,
                               includeCandidates: configuration.includeCandidates, ssrc: ssrc, cname: cname)
    }

    /// Capabilities with placeholder ICE credentials, to check an offer before gathering.
    static func placeholderCapabilities(configuration: CallMediaConfiguration) throws(CallMediaError) -> LocalAudioCapabilities {
        try capabilities(configuration: configuration,
                         ice: ICELocalParameters(ufrag: "wcsa", pwd: "wcsagentplaceholderpwd0", candidates: []),
                         ssrc: 1, cname: "wcs-agent")
    }

    /// The fingerprint of the process-wide DTLS certificate, in SDP form.
    static func localFingerprint() throws(CallMediaError) -> SDPFingerprint {
        do {
            return try SDPFingerprint(parsing: try DTLSCertificate.shared.fingerprint)
        } catch {
            throw .setup("DTLS certificate: \(error)")
        }
    }

    /// Our offer.
    static func offer(_ local: LocalAudioCapabilities) -> String {
        makeOffer(local, sessionId: UInt64.random(in: 1...(UInt64(1) << 62)), version: 1)
    }

    /// Our answer to `offer` and what it negotiated.
    static func answer(to offer: String, local: LocalAudioCapabilities) throws(CallMediaError) -> (sdp: String, negotiated: NegotiatedAudio) {
        do {
            return try makeAnswer(to: offer, local: local)
        } catch {
            throw .negotiation(error)
        }
    }

    /// What the peer's answer to our offer negotiated.
    static func accept(answer: String, toOffer offer: String) throws(CallMediaError) -> NegotiatedAudio {
        do {
            return try applyAnswer(answer, toOffer: offer)
        } catch {
            throw .negotiation(error)
        }
    }
}
