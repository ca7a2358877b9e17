import CSSL

/// What OpenSSL's verify and timer callbacks of one transport need. A transport stores it,
/// unretained, as its `SSL*`'s app data (ex_data index 0) and outlives the `SSL*`.
final class DTLSCallbackContext {
    /// The fingerprint the peer's SDP announced.
    let expectedFingerprint: DTLSFingerprint
    /// The retransmission timer durations.
    let retransmission: DTLSRetransmissionPolicy
    /// Set when the verify callback rejected the peer's certificate for its fingerprint.
    private(set) var rejectedFingerprint: DTLSFingerprint?
    /// True once the verify callback saw a certificate whose fingerprint did not match.
    private(set) var sawFingerprintMismatch = false

    init(expectedFingerprint: DTLSFingerprint, retransmission: DTLSRetransmissionPolicy) {
        self.expectedFingerprint = expectedFingerprint
        self.retransmission = retransmission
    }

    /// True when the `X509*` has the expected fingerprint; records a mismatch otherwise.
    func accepts(certificate: OpaquePointer) -> Bool {
        let actual = DTLSFingerprint(certificate: certificate, algorithm: expectedFingerprint.algorithm)
        guard actual == expectedFingerprint else {
            sawFingerprintMismatch = true
            rejectedFingerprint = actual
            return false
        }
        return true
    }

    /// Stores `self` as the app data of `ssl`.
    func attach(to ssl: OpaquePointer) {
        SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The context attached to `ssl`, if any.
    static func of(_ ssl: OpaquePointer?) -> DTLSCallbackContext? {
        guard let ssl, let data = SSL_get_ex_data(ssl, 0) else { return nil }
        return Unmanaged<DTLSCallbackContext>.fromOpaque(data).takeUnretainedValue()
    }
}

/// Peer certificate check: only the leaf (depth 0) matters, and only by fingerprint; WebRTC
/// certificates are self-signed, so OpenSSL's own chain verdict (`preverify`) is ignored.
/// Rejecting here aborts the handshake with an alert, so the peer fails promptly too.
let dtlsVerifyPeerCallback: @convention(c) (Int32, OpaquePointer?) -> Int32 = { _, store in
    guard let store else { return 0 }
    guard X509_STORE_CTX_get_error_depth(store) == 0 else { return 1 }
    guard let sslData = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
          let context = DTLSCallbackContext.of(OpaquePointer(sslData)),
          let certificate = X509_STORE_CTX_get_current_cert(store) else { return 0 }
    guard context.accepts(certificate: certificate) else {
        X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION)
        return 0
    }
    return 1
}

/// Retransmission timer durations from the transport's policy (`DTLS_set_timer_cb`).
let dtlsTimerCallback: @convention(c) (OpaquePointer?, UInt32) -> UInt32 = { ssl, previous in
    let policy = DTLSCallbackContext.of(ssl)?.retransmission ?? .rfc6347
    return policy.nextTimeoutMicroseconds(after: previous)
}
