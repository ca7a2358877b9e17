import CSRTP

/// Why an SRTP operation failed.
public enum SRTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The packet's authentication tag did not verify (libsrtp `auth_fail`), or it was tampered with.
    case authenticationFailed
    /// The packet index was already seen or is behind the replay window (`replay_fail`/`replay_old`).
    case replay
    /// The packet is too short or too long for its header and trailer.
    case badLength
    /// A key or salt does not have the length the profile needs.
    case invalidKeyLength(expected: Int, actual: Int)
    /// Any other libsrtp status, by name and number.
    case status(name: String, code: Int)

    public var description: String {
        switch self {
        case .authenticationFailed: "SRTP authentication failed"
        case .replay: "SRTP packet replayed or too old"
        case .badLength: "SRTP packet has a bad length"
        case let .invalidKeyLength(expected, actual): "SRTP key or salt has \(actual) bytes, expected \(expected)"
        case let .status(name, code): "SRTP error: \(name) (\(code))"
        }
    }

    /// Maps a failing libsrtp status to an error.
    init(status: srtp_err_status_t) {
        switch status {
        case srtp_err_status_auth_fail: self = .authenticationFailed
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: self = .replay
        default:
            let code = Int(status.rawValue)
            let name = code < Self.statusNames.count ? Self.statusNames[code] : "unknown"
            self = .status(name: name, code: code)
        }
    }

    /// libsrtp's `srtp_err_status_t` names, indexed by value (srtp2/srtp.h, 2.5).
    private static let statusNames = [
        "ok", "fail", "bad_param", "alloc_fail", "dealloc_fail", "init_fail", "terminus", "auth_fail",
        "cipher_fail", "replay_fail", "replay_old", "algo_fail", "no_such_op", "no_ctx", "cant_check",
        "key_expired", "socket_err", "signal_err", "nonce_bad", "read_fail", "write_fail", "parse_err",
        "encode_err", "semaphore_err", "pfkey_err", "bad_mki", "pkt_idx_old", "pkt_idx_adv",
    ]
}
