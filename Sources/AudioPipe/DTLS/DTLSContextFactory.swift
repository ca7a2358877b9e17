import CSSL

/// Builds the `SSL_CTX*` of a transport: DTLS 1.2 only, ECDHE suites, `use_srtp`, our certificate,
/// and a required peer certificate checked by fingerprint.
enum DTLSContextFactory {
    /// ECDHE suites with AEAD first; CBC-SHA kept for older peers. ECDSA for our certificate,
    /// RSA for peers (such as media servers) that present an RSA certificate.
    static let cipherList = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
        "ECDHE-ECDSA-AES128-SHA", "ECDHE-RSA-AES128-SHA",
        "ECDHE-ECDSA-AES256-SHA", "ECDHE-RSA-AES256-SHA",
    ].joined(separator: ":")

    /// Key exchange groups, most preferred first.
    static let groups = "X25519:P-256:P-384"

    /// A configured context (caller frees it with `SSL_CTX_free`).
    static func make(certificate: DTLSCertificate, profiles: [SRTPProfile]) throws(DTLSError) -> OpaquePointer {
        guard !profiles.isEmpty else { throw .setupFailed("no SRTP profile to offer") }
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(DTLS_method()) else {
            throw .setupFailed(OpenSSLErrorQueue.takeReason(fallback: "SSL_CTX_new failed"))
        }
        let options = CSSL_OP_NO_QUERY_MTU | CSSL_OP_NO_TICKET | CSSL_OP_NO_RENEGOTIATION | CSSL_OP_NO_COMPRESSION
        SSL_CTX_set_options(context, options)
        let profileList = profiles.map(\.name).joined(separator: ":")
        let steps: [(String, () -> Bool)] = [
            ("DTLS 1.2 minimum", { cssl_ctx_set_min_proto_version(context, DTLS1_2_VERSION) == 1 }),
            ("DTLS 1.2 maximum", { cssl_ctx_set_max_proto_version(context, DTLS1_2_VERSION) == 1 }),
            ("certificate", { SSL_CTX_use_certificate(context, certificate.certificate) == 1 }),
            ("private key", { SSL_CTX_use_PrivateKey(context, certificate.privateKey) == 1 }),
            ("key check", { SSL_CTX_check_private_key(context) == 1 }),
            ("cipher list", { SSL_CTX_set_cipher_list(context, cipherList) == 1 }),
            ("groups", { cssl_ctx_set1_groups_list(context, groups) == 1 }),
            ("use_srtp \(profileList)", { SSL_CTX_set_tlsext_use_srtp(context, profileList) == 0 }),  // 0 = success
        ]
        if let failed = steps.first(where: { !$0.1() }) {
            SSL_CTX_free(context)
            throw .setupFailed("\(failed.0): " + OpenSSLErrorQueue.takeReason(fallback: "refused"))
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, dtlsVerifyPeerCallback)
        return context
    }
}
