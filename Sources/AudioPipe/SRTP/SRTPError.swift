/// Why an SRTP operation failed.
public enum SRTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The packet's authentication tag did not verify, or it was tampered with.
    case authenticationFailed
    /// The packet index was already seen or is behind the 128-packet replay window (on protect:
    /// the same sequence number twice, which would reuse the keystream).
    case replay
    /// The packet is too short or too long for its header and trailer.
    case badLength
    /// A key or salt does not have the length the profile needs.
    case invalidKeyLength(expected: Int, actual: Int)
    /// 2^31 SRTCP packets were sent with one key (RFC 3711 §9.2): the key must change.
    case keyExpired
    /// A packet form this implementation does not handle (named).
    case unsupported(String)
    /// OpenSSL refused a cipher or MAC operation (named).
    case cryptoFailure(String)

    public var description: String {
        switch self {
        case .authenticationFailed: "SRTP authentication failed"
        case .replay: "SRTP packet replayed or too old"
        case .badLength: "SRTP packet has a bad length"
        case let .invalidKeyLength(expected, actual): "SRTP key or salt has \(actual) bytes, expected \(expected)"
        case .keyExpired: "SRTP key expired (SRTCP index exhausted)"
        case let .unsupported(what): "SRTP: \(what) is not supported"
        case let .cryptoFailure(what): "SRTP crypto failure in \(what)"
        }
    }
}
