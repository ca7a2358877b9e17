import CSSL

/// A certificate fingerprint as carried in SDP `a=fingerprint:<algorithm> <AB:CD:...>` (RFC 8122).
public struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// Hash functions usable for fingerprints.
    public enum Algorithm: String, Sendable, CaseIterable {
        case sha1 = "sha-1"
        case sha256 = "sha-256"
        case sha384 = "sha-384"
        case sha512 = "sha-512"

        /// Digest length in bytes.
        public var digestLength: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }

        /// OpenSSL's digest for this algorithm.
        var messageDigest: OpaquePointer? {
            switch self {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            case .sha384: EVP_sha384()
            case .sha512: EVP_sha512()
            }
        }
    }

    /// The hash function.
    public let algorithm: Algorithm
    /// The raw digest, `algorithm.digestLength` bytes.
    public let digest: [UInt8]

    /// A fingerprint from raw parts.
    /// - Throws: `DTLSError.invalidFingerprint` when the digest length does not fit the algorithm.
    public init(algorithm: Algorithm, digest: [UInt8]) throws(DTLSError) {
        guard digest.count == algorithm.digestLength else {
            throw .invalidFingerprint("\(algorithm.rawValue) needs \(algorithm.digestLength) bytes, got \(digest.count)")
        }
        self.algorithm = algorithm
        self.digest = digest
    }

    /// Parses an SDP value such as `sha-256 AB:CD:...` (algorithm case-insensitive, hex either case).
    /// - Throws: `DTLSError.invalidFingerprint` for an unknown algorithm, bad hex or wrong length.
    public init(sdpValue: String) throws(DTLSError) {
        let parts = sdpValue.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count == 2, let algorithm = Algorithm(rawValue: parts[0].lowercased()) else {
            throw .invalidFingerprint(sdpValue)
        }
        var digest: [UInt8] = []
        for pair in parts[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else { throw .invalidFingerprint(sdpValue) }
            digest.append(byte)
        }
        guard digest.count == algorithm.digestLength else { throw .invalidFingerprint(sdpValue) }
        self.algorithm = algorithm
        self.digest = digest
    }

    /// The fingerprint of an OpenSSL `X509*`, or nil if OpenSSL cannot digest it.
    init?(certificate: OpaquePointer, algorithm: Algorithm) {
        var bytes = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, algorithm.messageDigest, &bytes, &length) == 1,
              Int(length) == algorithm.digestLength else { return nil }
        try? self.init(algorithm: algorithm, digest: Array(bytes.prefix(Int(length))))
    }

    /// The SDP form: `sha-256 AB:CD:...` (uppercase hex, colon-separated).
    public var sdpValue: String {
        algorithm.rawValue + " " + digest.map { hexByte($0) }.joined(separator: ":")
    }

    public var description: String { sdpValue }
}

/// Two uppercase hex digits.
private func hexByte(_ byte: UInt8) -> String {
    let digits: [Character] = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}
