import MediaTestSupport
@testable import AudioPipe
import CSRTP
import Foundation

/// The test reference for `SRTPSession`: the same API on libsrtp2 (what the agent used before
/// its own SRTP over OpenSSL EVP). Interop tests check that each decrypts what the other encrypts.
///
/// Holds an outbound libsrtp session (`ssrc_any_outbound`, keyed with the local master key and salt)
/// and an inbound one (`ssrc_any_inbound`, keyed with the remote ones), with libsrtp's default replay
/// window. Each session has its own lock, so one thread may protect while another unprotects.
/// Every packet call allocates only its output array (`input.count + SRTP_MAX_TRAILER_LEN` bytes for
/// protect, `input.count` for unprotect) and transforms it in place.
final class LibsrtpSession: @unchecked Sendable {
    /// The profile both sessions use.
    let profile: SRTPProfile

    private let outbound: OpaquePointer
    private let inbound: OpaquePointer
    private let outboundLock = NSLock()
    private let inboundLock = NSLock()

    /// Creates the outbound and inbound sessions from master keys and salts.
    /// - Throws: `SRTPError.invalidKeyLength` when a key or salt does not fit `profile`, or the
    ///   libsrtp status if initialisation or session creation fails.
    init(
        profile: SRTPProfile,
        localKey: [UInt8], localSalt: [UInt8],
        remoteKey: [UInt8], remoteSalt: [UInt8]
    ) throws(SRTPError) {
        try LibsrtpLibrary.ensureInitialized()
        for (bytes, expected) in [
            (localKey, profile.keyLength), (remoteKey, profile.keyLength),
            (localSalt, profile.saltLength), (remoteSalt, profile.saltLength),
        ] where bytes.count != expected {
            throw .invalidKeyLength(expected: expected, actual: bytes.count)
        }
        self.profile = profile
        outbound = try Self.makeSession(profile: profile, masterKey: localKey + localSalt, direction: ssrc_any_outbound)
        do {
            inbound = try Self.makeSession(profile: profile, masterKey: remoteKey + remoteSalt, direction: ssrc_any_inbound)
        } catch {
            srtp_dealloc(outbound)
            throw error
        }
    }

    /// Creates the sessions from keys negotiated by DTLS-SRTP (`DTLSTransport`).
    convenience init(keyMaterial: SRTPKeyMaterial) throws(SRTPError) {
        try self.init(
            profile: keyMaterial.profile,
            localKey: keyMaterial.localKey, localSalt: keyMaterial.localSalt,
            remoteKey: keyMaterial.remoteKey, remoteSalt: keyMaterial.remoteSalt)
    }

    deinit {
        srtp_dealloc(outbound)
        srtp_dealloc(inbound)
    }

    /// Encrypts and authenticates an RTP packet (header at least 12 bytes, version 2).
    func protectRTP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        guard RTPHeaderLength.ofRTP(packet) != nil else { throw .badLength }
        return try transform(packet, growth: Int(SRTP_MAX_TRAILER_LEN), lock: outboundLock) {
            srtp_protect(outbound, $0, $1)
        }
    }

    /// Authenticates, replay-checks and decrypts an SRTP packet back into RTP.
    func unprotectRTP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        guard let headerLength = RTPHeaderLength.ofRTP(packet),
              packet.count >= headerLength + profile.rtpTagLength else { throw .badLength }
        return try transform(packet, growth: 0, lock: inboundLock) {
            srtp_unprotect(inbound, $0, $1)
        }
    }

    /// Encrypts and authenticates an RTCP compound packet (at least 8 bytes, version 2).
    func protectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        guard RTPHeaderLength.isRTCP(packet) else { throw .badLength }
        return try transform(packet, growth: Int(SRTP_MAX_TRAILER_LEN), lock: outboundLock) {
            srtp_protect_rtcp(outbound, $0, $1)
        }
    }

    /// Authenticates, replay-checks and decrypts an SRTCP packet back into RTCP.
    func unprotectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        guard RTPHeaderLength.isRTCP(packet),
              packet.count >= RTPHeaderLength.rtcpMinimum + profile.rtcpTrailerLength else { throw .badLength }
        return try transform(packet, growth: 0, lock: inboundLock) {
            srtp_unprotect_rtcp(inbound, $0, $1)
        }
    }

    /// Packets longer than this are refused (an IP datagram cannot carry more).
    static let maximumPacketLength = SRTPSession.maximumPacketLength

    /// Copies `packet` into a new array with `growth` spare bytes, runs `operation` on it in
    /// place under `lock`, and returns the bytes libsrtp reports as the result.
    private func transform(
        _ packet: [UInt8], growth: Int, lock: NSLock,
        _ operation: (UnsafeMutableRawPointer, UnsafeMutablePointer<Int32>) -> srtp_err_status_t
    ) throws(SRTPError) -> [UInt8] {
        guard packet.count <= Self.maximumPacketLength else { throw .badLength }
        var status = srtp_err_status_ok
        let output = [UInt8](unsafeUninitializedCapacity: packet.count + growth) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            packet.withUnsafeBufferPointer { source in
                base.initialize(from: source.baseAddress!, count: source.count)
            }
            var length = Int32(packet.count)
            lock.lock()
            status = operation(UnsafeMutableRawPointer(base), &length)
            lock.unlock()
            count = status == srtp_err_status_ok ? Int(length) : 0
        }
        guard status == srtp_err_status_ok else { throw SRTPError(libsrtpStatus: status) }
        return output
    }

    private static func makeSession(
        profile: SRTPProfile, masterKey: [UInt8], direction: srtp_ssrc_type_t
    ) throws(SRTPError) -> OpaquePointer {
        var policy = srtp_policy_t()
        let libsrtpProfile = srtp_profile_t(rawValue: UInt32(profile.rawValue))
        var status = srtp_crypto_policy_set_from_profile_for_rtp(&policy.rtp, libsrtpProfile)
        guard status == srtp_err_status_ok else { throw SRTPError(libsrtpStatus: status) }
        status = srtp_crypto_policy_set_from_profile_for_rtcp(&policy.rtcp, libsrtpProfile)
        guard status == srtp_err_status_ok else { throw SRTPError(libsrtpStatus: status) }
        policy.ssrc.type = direction
        policy.window_size = 0  // libsrtp's default (128 packets)
        policy.allow_repeat_tx = 0
        var session: OpaquePointer?
        var key = masterKey
        status = key.withUnsafeMutableBufferPointer { keyBytes in
            policy.key = keyBytes.baseAddress  // libsrtp copies the key during srtp_create
            return srtp_create(&session, &policy)
        }
        guard status == srtp_err_status_ok, let session else { throw SRTPError(libsrtpStatus: status) }
        return session
    }
}

/// Process-wide libsrtp initialisation for the reference.
enum LibsrtpLibrary {
    private static let initStatus: srtp_err_status_t = srtp_init()

    static func ensureInitialized() throws(SRTPError) {
        let status = initStatus
        guard status == srtp_err_status_ok else { throw SRTPError(libsrtpStatus: status) }
    }
}

extension SRTPError {
    /// Maps a failing libsrtp status to the error `SRTPSession` throws for the same case.
    init(libsrtpStatus status: srtp_err_status_t) {
        switch status {
        case srtp_err_status_auth_fail: self = .authenticationFailed
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: self = .replay
        case srtp_err_status_key_expired: self = .keyExpired
        default: self = .cryptoFailure("libsrtp status \(status.rawValue)")
        }
    }
}
