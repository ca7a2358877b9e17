import AudioSDP
/// Why a call's media failed, as a type: what `CallMediaEvent.failed` carries and what
/// `CallMediaError.failure` gives for a refused offer or answer.
///
/// AudioPipe names the failure; the application words it (AgentCore maps each case to the WCS
/// info string, e.g. "Failed by ICE error"). Plain value type, usable from any thread.
public enum MediaFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The offer or answer cannot be used (no common codec, no fingerprint, ...).
    case sdpRefused(SDPNegotiationError)
    /// ICE could not be set up: agent creation, gathering or the remote parameters.
    case iceSetup(String)
    /// ICE found no pair in time, libnice gave up, or RFC 7675 consent was lost.
    case iceFailed
    /// The peer's DTLS certificate does not match the fingerprint in its SDP.
    case dtlsFingerprintMismatch
    /// The DTLS handshake or connection failed (OpenSSL's reason, or a setup refusal).
    case dtlsFailed(DTLSError)
    /// The DTLS handshake did not finish within `CallMediaConfiguration.dtlsTimeout` after ICE.
    case dtlsTimeout
    /// SRTP could not be keyed from the DTLS export.
    case srtpFailed(SRTPError)
    /// A codec or the audio engine could not be set up (reason given).
    case mediaSetup(String)
    /// The call media was used out of order or configured wrongly (reason given).
    case sessionSetup(String)

    /// A clear reason for logs (not the WCS wording).
    public var description: String {
        switch self {
        case .sdpRefused(let error): "SDP refused: \(error)"
        case .iceSetup(let reason): "ICE setup failed: \(reason)"
        case .iceFailed: "ICE failed (no working pair, or consent lost)"
        case .dtlsFingerprintMismatch: "the peer's DTLS certificate does not match its SDP fingerprint"
        case .dtlsFailed(let error): "DTLS failed: \(error)"
        case .dtlsTimeout: "DTLS handshake timed out"
        case .srtpFailed(let error): "SRTP setup failed: \(error)"
        case .mediaSetup(let reason): "media setup failed: \(reason)"
        case .sessionSetup(let reason): "call media session setup failed: \(reason)"
        }
    }
}
