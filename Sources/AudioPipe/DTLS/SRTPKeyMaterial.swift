import AudioSDP
/// SRTP master keys negotiated by a DTLS-SRTP handshake (RFC 5764 §4.2), already assigned to
/// directions: protect outgoing packets with the local key and salt, unprotect incoming ones with
/// the remote key and salt. Its description never shows key bytes.
public struct SRTPKeyMaterial: Sendable, Equatable, CustomStringConvertible {
    /// The negotiated protection profile.
    public let profile: SRTPProfile
    /// Master key for packets this endpoint sends.
    public let localKey: [UInt8]
    /// Master salt for packets this endpoint sends.
    public let localSalt: [UInt8]
    /// Master key for packets the peer sends.
    public let remoteKey: [UInt8]
    /// Master salt for packets the peer sends.
    public let remoteSalt: [UInt8]

    /// The profile's IANA id (1 = AES128_CM_SHA1_80, 7 = AEAD_AES_128_GCM).
    public var profileID: UInt16 { profile.rawValue }
    /// The profile's name, e.g. `SRTP_AEAD_AES_128_GCM`.
    public var profileName: String { profile.name }

    /// Key material from parts (no length checks; `SRTPSession` checks them).
    public init(profile: SRTPProfile, localKey: [UInt8], localSalt: [UInt8], remoteKey: [UInt8], remoteSalt: [UInt8]) {
        self.profile = profile
        self.localKey = localKey
        self.localSalt = localSalt
        self.remoteKey = remoteKey
        self.remoteSalt = remoteSalt
    }

    /// Bytes to export with the `EXTRACTOR-dtls_srtp` label for `profile`: two keys and two salts.
    public static func exportLength(for profile: SRTPProfile) -> Int {
        2 * (profile.keyLength + profile.saltLength)
    }

    /// Splits exporter output laid out as client_key | server_key | client_salt | server_salt
    /// (RFC 5764 §4.2); `role` decides which half is local. Nil when `exported` has the wrong length.
    public init?(exported: [UInt8], profile: SRTPProfile, role: DTLSRole) {
        let keyLength = profile.keyLength
        let saltLength = profile.saltLength
        guard exported.count == Self.exportLength(for: profile) else { return nil }
        let clientKey = Array(exported[0..<keyLength])
        let serverKey = Array(exported[keyLength..<2 * keyLength])
        let clientSalt = Array(exported[2 * keyLength..<2 * keyLength + saltLength])
        let serverSalt = Array(exported[(2 * keyLength + saltLength)...])
        switch role {
        case .client:
            self.init(profile: profile, localKey: clientKey, localSalt: clientSalt, remoteKey: serverKey, remoteSalt: serverSalt)
        case .server:
            self.init(profile: profile, localKey: serverKey, localSalt: serverSalt, remoteKey: clientKey, remoteSalt: clientSalt)
        }
    }

    public var description: String { "SRTPKeyMaterial(\(profile.name), keys redacted)" }
}
