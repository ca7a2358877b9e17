/// The receiving half of an SRTP session: authenticates, replay-checks (a 128-packet window per
/// SSRC) and decrypts the peer's SRTP and SRTCP with the remote master key and salt.
///
/// Works in place: `unprotectRTP(_:)` turns the caller's array into the RTP packet (shorter by
/// the tag, capacity kept), so one buffer serves every datagram of a call.
///
/// Runs on: one thread at a time, with no lock. In a call it belongs to `CallMediaTransport`
/// on the loop thread, where datagrams arrive; not Sendable, so the compiler keeps it there. A
/// class because it owns OpenSSL cipher contexts.
public final class SRTPReceiver {
    /// The profile in use.
    public let profile: SRTPProfile
    private let context: SRTPCryptoContext

    /// Keys the receiver with the peer's master key and salt.
    /// - Throws: `SRTPError.invalidKeyLength` when they do not fit `profile`, `.cryptoFailure`
    ///   if OpenSSL refuses them.
    public init(profile: SRTPProfile, key: [UInt8], salt: [UInt8]) throws(SRTPError) {
        try profile.checkKey(key, salt: salt)
        self.profile = profile
        context = try SRTPCryptoContext(profile: profile, masterKey: key, masterSalt: salt, encrypting: false)
    }

    /// Keys the receiver from DTLS-SRTP key material (the remote key and salt).
    public convenience init(keyMaterial: SRTPKeyMaterial) throws(SRTPError) {
        try self.init(profile: keyMaterial.profile, key: keyMaterial.remoteKey, salt: keyMaterial.remoteSalt)
    }

    /// Checks and decrypts the SRTP packet in `packet` in place; on return it holds the RTP
    /// packet. Throws `.badLength`, `.authenticationFailed` or `.replay`; the array then has its
    /// original length but unspecified bytes.
    public func unprotectRTP(_ packet: inout [UInt8]) throws(SRTPError) {
        guard let headerLength = RTPHeaderLength.ofRTP(packet),
              packet.count >= headerLength + profile.rtpTagLength else { throw .badLength }
        try SRTPInPlace.transform(&packet, growth: 0) { (buffer, length) throws(SRTPError) in
            try context.unprotectRTP(buffer, length: length, headerLength: headerLength)
        }
    }

    /// Checks and decrypts the SRTCP packet in `packet` in place; on return it holds the RTCP
    /// compound. Errors as `unprotectRTP`.
    public func unprotectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        guard RTPHeaderLength.isRTCP(packet),
              packet.count >= RTPHeaderLength.rtcpMinimum + profile.rtcpTrailerLength else { throw .badLength }
        try SRTPInPlace.transform(&packet, growth: 0) { (buffer, length) throws(SRTPError) in
            try context.unprotectRTCP(buffer, length: length)
        }
    }
}
