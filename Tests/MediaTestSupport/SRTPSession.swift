import AudioPipe

/// Both halves of an SRTP session in one object, with copying calls: each call leaves its
/// argument alone and returns a new array. For code that handles both directions on one thread
/// and does not count allocations: tests (the libsrtp2 cross-checks, the RFC vectors), fuzz
/// harnesses, tools. A call does not use it: `CallMediaTransport` keys an `SRTPSender` for the
/// audio engine (media clock) and an `SRTPReceiver` for itself (loop), each working in place.
///
/// Protection is RFC 3711 (AES-CM, HMAC-SHA1-80) and RFC 7714 (AES-128-GCM) on OpenSSL's EVP,
/// so no second crypto library (libsrtp2 pulls in NSS on Debian) is loaded; libsrtp2 stays in
/// the tests as the reference this must interoperate with. Any SSRC, each with its own packet
/// index and a 128-packet replay window, as libsrtp's `ssrc_any_*` sessions behave.
///
/// Runs on: one thread at a time (not Sendable; no lock).
public final class SRTPSession {
    /// The profile both directions use.
    public var profile: SRTPProfile { sender.profile }
    /// The outbound half (local key and salt).
    public let sender: SRTPSender
    /// The inbound half (remote key and salt).
    public let receiver: SRTPReceiver

    /// Packets longer than this are refused (an IP datagram cannot carry more).
    public static let maximumPacketLength = SRTPInPlace.maximumPacketLength

    /// Creates the outbound and inbound halves from master keys and salts.
    /// - Throws: `SRTPError.invalidKeyLength` when a key or salt does not fit `profile`,
    ///   `.cryptoFailure` if OpenSSL refuses the keys.
    public init(
        profile: SRTPProfile,
        localKey: [UInt8], localSalt: [UInt8],
        remoteKey: [UInt8], remoteSalt: [UInt8]
    ) throws(SRTPError) {
        sender = try SRTPSender(profile: profile, key: localKey, salt: localSalt)
        receiver = try SRTPReceiver(profile: profile, key: remoteKey, salt: remoteSalt)
    }

    /// Creates both halves from keys negotiated by DTLS-SRTP (`DTLSTransport`).
    public convenience init(keyMaterial: SRTPKeyMaterial) throws(SRTPError) {
        try self.init(
            profile: keyMaterial.profile,
            localKey: keyMaterial.localKey, localSalt: keyMaterial.localSalt,
            remoteKey: keyMaterial.remoteKey, remoteSalt: keyMaterial.remoteSalt)
    }

    /// Encrypts and authenticates a copy of an RTP packet (see `SRTPSender.protectRTP`).
    public func protectRTP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        var copy = Self.copy(packet)
        try sender.protectRTP(&copy)
        return copy
    }

    /// Authenticates, replay-checks and decrypts a copy of an SRTP packet back into RTP.
    public func unprotectRTP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        var copy = Self.copy(packet)
        try receiver.unprotectRTP(&copy)
        return copy
    }

    /// Encrypts and authenticates a copy of an RTCP compound packet.
    public func protectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        var copy = Self.copy(packet)
        try sender.protectRTCP(&copy)
        return copy
    }

    /// Authenticates, replay-checks and decrypts a copy of an SRTCP packet back into RTCP.
    public func unprotectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        var copy = Self.copy(packet)
        try receiver.unprotectRTCP(&copy)
        return copy
    }

    /// A fresh array holding `packet`, with room for what protecting appends.
    private static func copy(_ packet: [UInt8]) -> [UInt8] {
        var copy: [UInt8] = []
        copy.reserveCapacity(packet.count + SRTPSender.maximumGrowth)
        copy.append(contentsOf: packet)
        return copy
    }
}
