/// Why a DTLS transport, certificate or fingerprint failed.
public enum DTLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer's certificate does not match the fingerprint from its SDP.
    case fingerprintMismatch
    /// The handshake or the connection failed inside OpenSSL; `reason` is OpenSSL's reason string
    /// (e.g. "sslv3 alert bad certificate", "read timeout expired").
    case protocolFailure(reason: String)
    /// An SDP `a=fingerprint` value that cannot be parsed.
    case invalidFingerprint(String)
    /// Creating the key or certificate failed.
    case certificateFailed(String)
    /// Setting up OpenSSL for a transport failed (bad parameter or OpenSSL refusal).
    case setupFailed(String)

    public var description: String {
        switch self {
        case .fingerprintMismatch: "Failed by DTLS fingerprint error"
        case let .protocolFailure(reason): "Failed by DTLS error: \(reason)"
        case let .invalidFingerprint(value): "Invalid DTLS fingerprint: \(value)"
        case let .certificateFailed(reason): "DTLS certificate generation failed: \(reason)"
        case let .setupFailed(reason): "DTLS setup failed: \(reason)"
        }
    }
}
