/// The sending half of an SRTP session: protects our RTP and RTCP with the local master key and
/// salt (RFC 3711 AES-CM + HMAC-SHA1-80, or RFC 7714 AES-128-GCM, on OpenSSL's EVP), any SSRC,
/// each with its own packet index.
///
/// Works in place: `protectRTP(_:)` encrypts the caller's array and appends the tag, so a buffer
/// reused for every packet (with `maximumGrowth` bytes of spare capacity) is never reallocated.
///
/// Runs on: one thread at a time, with no lock. In a call it belongs to the `CallAudioEngine`
/// (the media clock thread) from the moment DTLS hands it over (`sending`); not Sendable, so the
/// compiler keeps it there. A class because it owns OpenSSL cipher contexts.
public final class SRTPSender {
    /// The profile in use.
    public let profile: SRTPProfile
    private let context: SRTPCryptoContext

    /// Spare capacity a packet buffer needs so that protecting never reallocates it: the RTCP
    /// trailer (SRTCP index and tag), the larger of the two growths, for either profile.
    public static let maximumGrowth = 4 + 16

    /// Keys the sender with our master key and salt.
    /// - Throws: `SRTPError.invalidKeyLength` when they do not fit `profile`, `.cryptoFailure`
    ///   if OpenSSL refuses them.
    public init(profile: SRTPProfile, key: [UInt8], salt: [UInt8]) throws(SRTPError) {
        try profile.checkKey(key, salt: salt)
        self.profile = profile
        context = try SRTPCryptoContext(profile: profile, masterKey: key, masterSalt: salt, encrypting: true)
    }

    /// Keys the sender from DTLS-SRTP key material (the local key and salt).
    public convenience init(keyMaterial: SRTPKeyMaterial) throws(SRTPError) {
        try self.init(profile: keyMaterial.profile, key: keyMaterial.localKey, salt: keyMaterial.localSalt)
    }

    /// Encrypts and authenticates the RTP packet in `packet` (header at least 12 bytes,
    /// version 2) in place; it grows by `profile.rtpTagLength`. Throws `.badLength` for a
    /// packet that is not RTP, `.replay` for an index already sent; the packet is then unchanged.
    public func protectRTP(_ packet: inout [UInt8]) throws(SRTPError) {
        guard let headerLength = RTPHeaderLength.ofRTP(packet) else { throw .badLength }
        try SRTPInPlace.transform(&packet, growth: profile.rtpTagLength) { (buffer, length) throws(SRTPError) in
            try context.protectRTP(buffer, length: length, headerLength: headerLength)
        }
    }

    /// Encrypts and authenticates the RTCP compound in `packet` (at least 8 bytes, version 2) in
    /// place; it grows by `profile.rtcpTrailerLength`.
    public func protectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        guard RTPHeaderLength.isRTCP(packet) else { throw .badLength }
        try SRTPInPlace.transform(&packet, growth: profile.rtcpTrailerLength) { (buffer, length) throws(SRTPError) in
            try context.protectRTCP(buffer, length: length)
        }
    }
}
