import CSSL
import CWebSockets

/// Our part of server certificate verification, run from OpenSSL's verify callback (lws
/// forwards it as LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION).
///
/// OpenSSL and lws do the chain and host-name checks; this records why a check failed, accepts
/// everything when verification is disabled, and checks IPv6 literals against the leaf's IP
/// SANs (lws takes the TLS name from the Host header cut at the first ':', which cannot work
/// for "[::1]:port", so the lws name check is skipped for them).
struct CertificateCheck {
    /// `allowInsecureTLS`: accept any certificate.
    let insecure: Bool
    /// The IPv6 literal the URL named (zone allowed), or nil.
    let ipv6Literal: String?

    /// `reject`: fail the handshake; `failure`: why verification failed, if it did.
    func evaluate(storeContext: OpaquePointer, preverifyOK: Bool) -> (reject: Bool, failure: String?) {
        if insecure {
            X509_STORE_CTX_set_error(storeContext, X509_V_OK)
            return (false, nil)
        }
        if !preverifyOK {
            // OpenSSL already failed it; lws fails the handshake. Keep the reason.
            let code = X509_STORE_CTX_get_error(storeContext)
            return (false, String(cString: X509_verify_cert_error_string(Int(code))))
        }
        guard let ipv6Literal, X509_STORE_CTX_get_error_depth(storeContext) == 0,
              let certificate = X509_STORE_CTX_get_current_cert(storeContext) else {
            return (false, nil)
        }
        let address = ipv6Literal.split(separator: "%", maxSplits: 1).first.map(String.init) ?? ipv6Literal
        guard X509_check_ip_asc(certificate, address, 0) == 1 else {
            X509_STORE_CTX_set_error(storeContext, X509_V_ERR_IP_ADDRESS_MISMATCH)
            return (true, "IP address mismatch (the certificate does not cover \(address))")
        }
        return (false, nil)
    }
}
