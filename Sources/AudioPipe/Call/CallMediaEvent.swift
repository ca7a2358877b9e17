/// What a `CallMedia` reports through `events`, in the order things happen.
public enum CallMediaEvent: Sendable, Equatable {
    /// ICE found a working pair (the selected pair when libnice has reported it already).
    case iceConnected(ICESelectedPair?)
    /// The DTLS handshake finished and the peer's certificate matched its SDP fingerprint;
    /// `profile` is the SRTP profile, e.g. `SRTP_AEAD_AES_128_GCM`. Media starts now.
    case dtlsConnected(profile: String)
    /// The first RTP packet arrived and decrypted.
    case firstPacketReceived
    /// The first received audio frame was decoded and played into the sink.
    case firstAudioDecoded
    /// The peer sent an RFC 4733 DTMF key press (each press once).
    case dtmfReceived(Character)
    /// No RTP arrived for `CallMediaConfiguration.mediaTimeout` seconds while media was running.
    case mediaTimeout
    /// The call's media failed; the text is the WCS info string: "Failed by ICE error",
    /// "Failed by DTLS fingerprint error", "Failed by DTLS error" or "No common codecs"
    /// (see `CallMediaFailure`). Media has stopped; call `close()`.
    case failed(String)
    /// `close()` finished; the stream ends after this event.
    case closed
}

/// The failure texts of `CallMediaEvent.failed`, as WCS words them.
public enum CallMediaFailure {
    /// ICE found no pair in time, libnice failed, or consent was lost.
    public static let ice = ICEState.failureReason
    /// The peer's DTLS certificate does not match the fingerprint in its SDP.
    public static let dtlsFingerprint = "Failed by DTLS fingerprint error"
    /// The DTLS handshake failed or did not finish within `dtlsTimeout`.
    public static let dtls = "Failed by DTLS error"
    /// Offer and answer share no codec.
    public static let noCommonCodecs = "No common codecs"
}
