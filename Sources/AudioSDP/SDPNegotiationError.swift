/// Why an offer or answer cannot be used. `description` is the text for logs and, where WCS
/// has an info string for the case, that string ("No common codecs").
public enum SDPNegotiationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not valid SDP.
    case malformed(SDPError)
    /// There is no `m=audio` section with a non-zero port.
    case noAudioMedia
    /// None of our codecs is in the remote description.
    case noCommonCodecs
    /// `a=ice-ufrag` or `a=ice-pwd` is missing.
    case missingICECredentials
    /// A DTLS profile without any `a=fingerprint`.
    case missingFingerprint
    /// Fingerprints are present, but none uses SHA-256 (the names found are listed).
    case noSHA256Fingerprint(offered: [String])
    /// A plain RTP profile (such as `RTP/AVP`) without a fingerprint: no DTLS-SRTP.
    case noDTLS(transportProtocol: String)
    /// `a=setup:holdconn` is not supported.
    case holdconnSetup
    /// An `a=setup` value that is not allowed here (`actpass` in an answer).
    case invalidSetup(String)
    /// The answer rejected our audio section (port 0).
    case audioRejected
    /// The answer does not fit our offer (reason given).
    case answerMismatch(String)

    /// A clear reason; "No common codecs" exactly as WCS words it.
    public var description: String {
        switch self {
        case .malformed(let error): "malformed SDP: \(error)"
        case .noAudioMedia: "no audio m-line"
        case .noCommonCodecs: "No common codecs"
        case .missingICECredentials: "missing ice-ufrag/ice-pwd"
        case .missingFingerprint: "missing DTLS fingerprint"
        case .noSHA256Fingerprint(let names): "no sha-256 fingerprint (found \(names.joined(separator: ", ")))"
        case .noDTLS(let proto): "no DTLS: \(proto) without a fingerprint"
        case .holdconnSetup: "setup:holdconn is not supported"
        case .invalidSetup(let value): "setup:\(value) is not valid here"
        case .audioRejected: "the answer rejected the audio stream (port 0)"
        case .answerMismatch(let reason): "answer does not match offer: \(reason)"
        }
    }

}
