import CSSL
import FoundationEssentials
import Glibc

/// HMAC-SHA1 through OpenSSL's EVP_MAC, keyed once; each tag re-initialises the context with
/// the same key (RFC 3711's authentication transform for AES-CM profiles).
///
/// Not thread-safe: one instance per direction, used under that direction's lock. A class
/// because it owns the `EVP_MAC_CTX`.
final class HMACSHA1 {
    /// Bytes of a full HMAC-SHA1 output.
    static let digestLength = 20

    private let mac: OpaquePointer
    private let context: OpaquePointer

    init(key: [UInt8]) throws(SRTPError) {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { throw .cryptoFailure("HMAC unavailable") }
        guard let context = EVP_MAC_CTX_new(mac) else {
            EVP_MAC_free(mac)
            throw .cryptoFailure("HMAC context")
        }
        // OSSL_PARAM keeps the pointers, so both strings must outlive EVP_MAC_init.
        let name = strdup("digest")!
        let digest = strdup("SHA1")!
        defer {
            free(name)
            free(digest)
        }
        var parameters = [OSSL_PARAM_construct_utf8_string(name, digest, 0), OSSL_PARAM_construct_end()]
        guard EVP_MAC_init(context, key, key.count, &parameters) == 1 else {
            EVP_MAC_CTX_free(context)
            EVP_MAC_free(mac)
            throw .cryptoFailure("HMAC key")
        }
        self.mac = mac
        self.context = context
    }

    deinit {
        EVP_MAC_CTX_free(context)
        EVP_MAC_free(mac)
    }

    /// The HMAC of `message` followed by `suffix` (the ROC or nothing), truncated to `length`
    /// bytes written at `output`.
    func tag(_ message: UnsafeRawBufferPointer, suffix: UnsafeRawBufferPointer, length: Int,
             into output: UnsafeMutablePointer<UInt8>) throws(SRTPError) {
        var digest = (UInt64(0), UInt64(0), UInt32(0))
        var written = 0
        let ok = withUnsafeMutableBytes(of: &digest) { full in
            let bytes = full.baseAddress!.assumingMemoryBound(to: UInt8.self)
            guard EVP_MAC_init(context, nil, 0, nil) == 1,
                  EVP_MAC_update(context, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count) == 1,
                  suffix.isEmpty || EVP_MAC_update(context, suffix.baseAddress?.assumingMemoryBound(to: UInt8.self), suffix.count) == 1,
                  EVP_MAC_final(context, bytes, &written, Self.digestLength) == 1, written == Self.digestLength else { return false }
            output.update(from: bytes, count: length)
            return true
        }
        guard ok else { throw .cryptoFailure("HMAC") }
    }
}
