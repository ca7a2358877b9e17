import AudioSDP
/// Why a `CallMedia` call was refused. `description` is a clear reason; `failure` is the
/// typed `MediaFailure` it is reported as.
public enum CallMediaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The offer or answer cannot be used; "No common codecs" when no codec is shared.
    case negotiation(SDPNegotiationError)
    /// ICE could not be set up (agent creation, gathering or the remote parameters).
    case ice(String)
    /// DTLS, SRTP or a codec could not be set up.
    case setup(String)
    /// A method was called in the wrong order (such as `applyAnswer` without `makeOffer`).
    case invalidState(String)
    /// A configuration value cannot work (reason given).
    case invalidConfiguration(String)
    /// `sendDTMF` without a negotiated telephone-event payload type.
    case dtmfNotNegotiated
    /// `sendDTMF` with a character that is not a DTMF key.
    case invalidDTMF(DTMFError)
    /// `close()` was called (possibly while the method was waiting).
    case closed

    public var description: String {
        switch self {
        case .negotiation(let error): error.description
        case .ice(let reason): "ICE setup failed: \(reason)"
        case .setup(let reason): "media setup failed: \(reason)"
        case .invalidState(let reason): "call media used out of order: \(reason)"
        case .invalidConfiguration(let reason): "invalid call media configuration: \(reason)"
        case .dtmfNotNegotiated: "the peer did not negotiate telephone-event (RFC 4733); in-band DTMF is not possible"
        case .invalidDTMF(let error): error.description
        case .closed: "call media is closed"
        }
    }

    /// The typed failure this refusal reports through `CallMediaEvent.failed` (the application
    /// words it; AgentCore uses the WCS info strings).
    public var failure: MediaFailure {
        switch self {
        case .negotiation(let error): .sdpRefused(error)
        case .ice(let reason): .iceSetup(reason)
        case .setup(let reason): .mediaSetup(reason)
        case .invalidState, .invalidConfiguration, .dtmfNotNegotiated, .invalidDTMF, .closed: .sessionSetup(description)
        }
    }
}
