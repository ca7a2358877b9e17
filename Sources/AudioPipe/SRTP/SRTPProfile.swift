/// A DTLS-SRTP protection profile that both OpenSSL's `use_srtp` negotiation and libsrtp know.
///
/// The raw value is the IANA DTLS-SRTP profile id (RFC 5764 §4.1.2, RFC 7714 §14.2), which is also
/// libsrtp's `srtp_profile_t` value.
public enum SRTPProfile: UInt16, Sendable, CaseIterable, CustomStringConvertible {
    /// AES-128 counter mode with a 80-bit HMAC-SHA1 tag (`SRTP_AES128_CM_SHA1_80`, id 1).
    case aes128CmSha1_80 = 1
    /// AES-128 GCM with a 16-byte tag (`SRTP_AEAD_AES_128_GCM`, id 7).
    case aeadAes128Gcm = 7

    /// The order offered in the DTLS `use_srtp` extension by default: GCM first, CM as fallback.
    public static let preferredOrder: [SRTPProfile] = [.aeadAes128Gcm, .aes128CmSha1_80]

    /// The OpenSSL / RFC name, e.g. `SRTP_AEAD_AES_128_GCM`.
    public var name: String {
        switch self {
        case .aes128CmSha1_80: "SRTP_AES128_CM_SHA1_80"
        case .aeadAes128Gcm: "SRTP_AEAD_AES_128_GCM"
        }
    }

    /// Master key length in bytes (16 for both profiles).
    public var keyLength: Int { 16 }

    /// Master salt length in bytes: 14 for AES-CM, 12 for AES-GCM.
    public var saltLength: Int {
        switch self {
        case .aes128CmSha1_80: 14
        case .aeadAes128Gcm: 12
        }
    }

    /// Bytes of authentication tag that protecting an RTP packet appends (10 for CM, 16 for GCM).
    public var rtpTagLength: Int {
        switch self {
        case .aes128CmSha1_80: 10
        case .aeadAes128Gcm: 16
        }
    }

    /// Bytes that protecting an RTCP packet appends: the 4-byte SRTCP index plus the tag.
    public var rtcpTrailerLength: Int { 4 + rtpTagLength }

    /// Looks a profile up by its OpenSSL / RFC name (case-sensitive, as OpenSSL reports it).
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    public var description: String { name }
}
