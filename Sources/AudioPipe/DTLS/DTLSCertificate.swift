import CSSL

/// An ECDSA P-256 key with a self-signed X.509 v3 certificate, the local identity for DTLS-SRTP.
///
/// WebRTC peers authenticate each other by the certificate fingerprint exchanged in SDP, so the
/// certificate is self-signed and short-lived. Immutable after creation and safe to share between
/// threads and transports.
public final class DTLSCertificate: @unchecked Sendable {  // unchecked: EVP_PKEY*/X509* handles, never changed after init
    /// The process-wide certificate, generated once on first use (thread-safe).
    /// - Throws: the generation error, every time, if the one generation attempt failed.
    public static var shared: DTLSCertificate {
        get throws(DTLSError) { try sharedResult.get() }
    }

    private static let sharedResult = Result<DTLSCertificate, DTLSError> { () throws(DTLSError) in
        try DTLSCertificate()
    }

    /// The subject and issuer common name.
    public let commonName: String
    /// The SHA-256 fingerprint in SDP form, `sha-256 AB:CD:...`.
    public let fingerprint: String

    /// The `EVP_PKEY*` (owned).
    let privateKey: OpaquePointer
    /// The `X509*` (owned).
    let certificate: OpaquePointer

    /// Generates a fresh key and certificate: random 63-bit serial, subject = issuer = `CN=<commonName>`,
    /// valid from one day ago for `validityDays` days, signed with ECDSA-SHA256.
    /// - Throws: `DTLSError.certificateFailed` with OpenSSL's reason.
    public init(commonName: String = "wcs-agent", validityDays: Int = 30) throws(DTLSError) {
        guard !commonName.isEmpty, validityDays > 0 else {
            throw .certificateFailed("empty common name or non-positive validity")
        }
        OpenSSLErrorQueue.clear()
        let key = try Self.generateKey()
        let x509: OpaquePointer
        do {
            x509 = try Self.makeCertificate(key: key, commonName: commonName, validityDays: validityDays)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        guard let digest = DTLSFingerprint(certificate: x509, algorithm: .sha256) else {
            X509_free(x509)
            EVP_PKEY_free(key)
            throw .certificateFailed(OpenSSLErrorQueue.takeReason(fallback: "X509_digest failed"))
        }
        self.commonName = commonName
        self.privateKey = key
        self.certificate = x509
        self.fingerprint = digest.sdpValue
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }

    /// The certificate's fingerprint with another hash function.
    public func fingerprint(_ algorithm: DTLSFingerprint.Algorithm) -> DTLSFingerprint? {
        DTLSFingerprint(certificate: certificate, algorithm: algorithm)
    }

    private static func generateKey() throws(DTLSError) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw .certificateFailed(OpenSSLErrorQueue.takeReason(fallback: "no EC key support"))
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &key) == 1, let key else {
            throw .certificateFailed(OpenSSLErrorQueue.takeReason(fallback: "P-256 key generation failed"))
        }
        return key
    }

    private static func makeCertificate(
        key: OpaquePointer, commonName: String, validityDays: Int
    ) throws(DTLSError) -> OpaquePointer {
        guard let x509 = X509_new() else { throw .certificateFailed("X509_new failed") }
        let secondsPerDay = 86_400
        let name = Array(commonName.utf8)
        let subject = X509_get_subject_name(x509)
        let built = X509_set_version(x509, 2) == 1  // v3
            && ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), randomSerial()) == 1
            && X509_gmtime_adj(X509_getm_notBefore(x509), -secondsPerDay) != nil
            && X509_gmtime_adj(X509_getm_notAfter(x509), (validityDays - 1) * secondsPerDay) != nil
            && X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, name, Int32(name.count), -1, 0) == 1
            && X509_set_issuer_name(x509, subject) == 1
            && X509_set_pubkey(x509, key) == 1
            && X509_sign(x509, key, EVP_sha256()) > 0
        guard built else {
            X509_free(x509)
            throw .certificateFailed(OpenSSLErrorQueue.takeReason(fallback: "building the certificate failed"))
        }
        return x509
    }

    /// A random positive, non-zero 63-bit serial number (RFC 5280 §4.1.2.2).
    private static func randomSerial() -> UInt64 {
        var value: UInt64 = 0
        let filled = withUnsafeMutableBytes(of: &value) { RAND_bytes($0.bindMemory(to: UInt8.self).baseAddress, 8) == 1 }
        if !filled { value = UInt64.random(in: 1...UInt64.max) }
        return max(value & 0x7FFF_FFFF_FFFF_FFFF, 1)
    }
}
