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
    /// A DTMF key press found as tones inside the far end's decoded audio (`DTMFToneDetector`,
    /// reported by a `DTMFToneDetectorStage` among the call's stages), each press once, when
    /// its tone starts. The application merges it with `dtmfReceived` (a gateway may send both).
    case dtmfToneDetected(Character)
    /// No RTP arrived for `CallMediaConfiguration.mediaTimeout` seconds while media was running.
    case mediaTimeout
    /// The peer ended its media with a DTLS close_notify (its hangup, seen on the media path
    /// first). Our media has stopped too (nothing more is sent); end the call and `close()`.
    case peerClosed
    /// The call's media failed, once (see `MediaFailure`; AgentCore words it as WCS does).
    /// Media has stopped; call `close()`.
    case failed(MediaFailure)
    /// `close()` finished; the stream ends after this event.
    case closed
}

