/// An `a=fingerprint:<hash> <hex:hex:...>` value as written in SDP (RFC 8122), any hash name.
/// The DTLS layer checks certificates against `DTLSFingerprint`, made from `description`.
public struct SDPFingerprint: Sendable, Equatable, CustomStringConvertible {
    /// The hash function name in lowercase, for example `sha-256`.
    public var algorithm: String
    /// The digest bytes.
    public var bytes: [UInt8]

    /// Creates a fingerprint; `algorithm` is stored lowercased.
    public init(algorithm: String, bytes: [UInt8]) {
        self.algorithm = algorithm.lowercased()
        self.bytes = bytes
    }

    /// A SHA-256 fingerprint of a certificate's DER bytes computed elsewhere.
    public static func sha256(_ bytes: [UInt8]) -> SDPFingerprint {
        SDPFingerprint(algorithm: "sha-256", bytes: bytes)
    }

    /// Parses `sha-256 AB:CD:...` (hex digits in either case). A SHA-256 digest must be 32 bytes.
    public init(parsing text: String, lineNumber: Int? = nil) throws(SDPError) {
        func fail(_ reason: String) -> SDPError {
            SDPError(line: lineNumber, text: "a=fingerprint:" + text, reason: "bad fingerprint: " + reason)
        }
        let fields = text.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 2 else { throw fail("expected '<hash> <hex>'") }
        var bytes: [UInt8] = []
        for pair in fields[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.count == 2, pair.allSatisfy(\.isHexDigit), let byte = UInt8(pair, radix: 16) else { throw fail("'\(pair)' is not a hex byte") }
            bytes.append(byte)
        }
        self.init(algorithm: String(fields[0]), bytes: bytes)
        if algorithm == "sha-256" && bytes.count != 32 { throw fail("a sha-256 digest has 32 bytes, not \(bytes.count)") }
    }

    /// The hex part, upper case with colons: `AB:CD:...`.
    public var hex: String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
    }

    /// The attribute value: `sha-256 AB:CD:...`.
    public var description: String { "\(algorithm) \(hex)" }
}

/// The `a=setup` value (RFC 4145, RFC 8842).
public enum DTLSSetup: String, Sendable, Equatable {
    /// The endpoint will initiate (DTLS client).
    case active
    /// The endpoint will accept (DTLS server).
    case passive
    /// Either; only valid in an offer.
    case actpass
    /// Hold the connection; not supported by this agent.
    case holdconn
}

/// A media direction attribute (RFC 3264 / RFC 8866).
public enum MediaDirection: String, Sendable, Equatable, CaseIterable {
    /// Send and receive.
    case sendrecv
    /// Send only.
    case sendonly
    /// Receive only.
    case recvonly
    /// Neither.
    case inactive

    /// Builds a direction from whether media is sent and received.
    public init(sends: Bool, receives: Bool) {
        switch (sends, receives) {
        case (true, true): self = .sendrecv
        case (true, false): self = .sendonly
        case (false, true): self = .recvonly
        case (false, false): self = .inactive
        }
    }

    /// Whether this side sends media.
    public var sends: Bool { self == .sendrecv || self == .sendonly }
    /// Whether this side receives media.
    public var receives: Bool { self == .sendrecv || self == .recvonly }

    /// The direction the other side sees: sendonly and recvonly swap.
    public var reversed: MediaDirection { MediaDirection(sends: receives, receives: sends) }

    /// The answer to an offer with this direction when we would like `local` (RFC 3264 6.1):
    /// we send only if the offerer receives and we want to send, and likewise for receiving.
    public func answer(wanting local: MediaDirection) -> MediaDirection {
        MediaDirection(sends: receives && local.sends, receives: sends && local.receives)
    }
}
