import Foundation

/// One SRTP/SRTCP crypto context pair for a call: RFC 3711 (AES-CM, HMAC-SHA1-80) and RFC 7714
/// (AES-128-GCM) on OpenSSL's EVP, so no second crypto library (libsrtp2 pulls in NSS on Debian)
/// is loaded. libsrtp2 stays in the tests as the reference this must interoperate with.
///
/// Outbound context keyed with the local master key and salt, inbound with the remote ones; any
/// SSRC, each with its own packet index and a 128-packet replay window, as libsrtp's
/// `ssrc_any_*` sessions behave. Each direction has its own lock, so the audio thread may protect
/// while the loop thread unprotects. Every packet call allocates only its output array.
public final class SRTPSession: @unchecked Sendable {  // unchecked: EVP cipher contexts (C handles), each direction under its own lock
    /// The profile both directions use.
    public let profile: SRTPProfile

    private let outbound: SRTPCryptoContext
    private let inbound: SRTPCryptoContext
    private let outboundLock = NSLock()
    private let inboundLock = NSLock()

    /// Creates the outbound and inbound contexts from master keys and salts.
    /// - Throws: `SRTPError.invalidKeyLength` when a key or salt does not fit `profile`,
    ///   `.cryptoFailure` if OpenSSL refuses the keys.
    public init(
        profile: SRTPProfile,
        localKey: [UInt8], localSalt: [UInt8],
        remoteKey: [UInt8], remoteSalt: [UInt8]
    ) throws(SRTPError) {
        for (bytes, expected) in [
            (localKey, profile.keyLength), (remoteKey, profile.keyLength),
            (localSalt, profile.saltLength), (remoteSalt, profile.saltLength),
        ] where bytes.count != expected {
            throw .invalidKeyLength(expected: expected, actual: bytes.count)
        }
        self.profile = profile
        outbound = try SRTPCryptoContext(profile: profile, masterKey: localKey, masterSalt: localSalt, encrypting: true)
        inbound = try SRTPCryptoContext(profile: profile, masterKey: remoteKey, masterSalt: remoteSalt, encrypting: false)
    }

    /// Creates the sessions from keys negotiated by DTLS-SRTP (`DTLSTransport`).
    public convenience init(keyMaterial: SRTPKeyMaterial) throws(SRTPError) {
        try self.init(
            profile: keyMaterial.profile,
            localKey: keyMaterial.localKey, localSalt: keyMaterial.localSalt,
            remoteKey: keyMaterial.remoteKey, remoteSalt: keyMaterial.remoteSalt)
    }

    /// Encrypts and authenticates an RTP packet (header at least 12 bytes, version 2).
    public func protectRTP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        guard let headerLength = RTPHeaderLength.ofRTP(packet) else { throw .badLength }
        return try transform(packet, growth: profile.rtpTagLength, lock: outboundLock) { (buffer) throws(SRTPError) in
            try outbound.protectRTP(buffer, length: packet.count, headerLength: headerLength)
        }
    }

    /// Authenticates, replay-checks and decrypts an SRTP packet back into RTP.
    public func unprotectRTP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        guard let headerLength = RTPHeaderLength.ofRTP(packet),
              packet.count >= headerLength + profile.rtpTagLength else { throw .badLength }
        return try transform(packet, growth: 0, lock: inboundLock) { (buffer) throws(SRTPError) in
            try inbound.unprotectRTP(buffer, length: packet.count, headerLength: headerLength)
        }
    }

    /// Encrypts and authenticates an RTCP compound packet (at least 8 bytes, version 2).
    public func protectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        guard RTPHeaderLength.isRTCP(packet) else { throw .badLength }
        return try transform(packet, growth: profile.rtcpTrailerLength, lock: outboundLock) { (buffer) throws(SRTPError) in
            try outbound.protectRTCP(buffer, length: packet.count)
        }
    }

    /// Authenticates, replay-checks and decrypts an SRTCP packet back into RTCP.
    public func unprotectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        guard RTPHeaderLength.isRTCP(packet),
              packet.count >= RTPHeaderLength.rtcpMinimum + profile.rtcpTrailerLength else { throw .badLength }
        return try transform(packet, growth: 0, lock: inboundLock) { (buffer) throws(SRTPError) in
            try inbound.unprotectRTCP(buffer, length: packet.count)
        }
    }

    /// Packets longer than this are refused (an IP datagram cannot carry more).
    public static let maximumPacketLength = 65_535

    /// Copies `packet` into a new array with `growth` spare bytes, runs `operation` on it in
    /// place under `lock`, and returns the bytes the operation reports as the result.
    private func transform(
        _ packet: [UInt8], growth: Int, lock: NSLock,
        _ operation: (UnsafeMutableBufferPointer<UInt8>) throws(SRTPError) -> Int
    ) throws(SRTPError) -> [UInt8] {
        guard packet.count <= Self.maximumPacketLength else { throw .badLength }
        var failure: SRTPError?
        let output = [UInt8](unsafeUninitializedCapacity: packet.count + growth) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            packet.withUnsafeBufferPointer { source in
                base.initialize(from: source.baseAddress!, count: source.count)
            }
            (base + packet.count).initialize(repeating: 0, count: growth)
            lock.lock()
            defer { lock.unlock() }
            do throws(SRTPError) {
                count = try operation(buffer)
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return output
    }
}
