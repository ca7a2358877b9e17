import CSSL

/// AES-128 in counter mode (RFC 3711 AES-CM) or GCM (RFC 7714) through OpenSSL's EVP, keyed
/// once at creation; each packet only sets its IV. Works in place on the caller's buffer.
///
/// Not thread-safe: owned by the `SRTPCryptoContext` of one direction, which one thread uses
/// (`SRTPSender`, `SRTPReceiver`). A class because it owns the `EVP_CIPHER_CTX`.
final class EVPCipher {
    /// Counter mode (encrypt and decrypt are the same operation) or GCM.
    enum Mode { case counter, gcm }

    /// Bytes of a GCM authentication tag (RFC 7714: 16).
    static let gcmTagLength = 16

    let mode: Mode
    private let context: OpaquePointer
    private let encrypting: Bool

    /// Keys the cipher. `encrypting` matters for GCM only (seal or open).
    init(mode: Mode, key: [UInt8], encrypting: Bool) throws(SRTPError) {
        guard key.count == 16, let context = EVP_CIPHER_CTX_new() else { throw .cryptoFailure("EVP cipher setup") }
        let cipher = mode == .counter ? EVP_aes_128_ctr() : EVP_aes_128_gcm()
        let keyed = encrypting || mode == .counter
            ? EVP_EncryptInit_ex(context, cipher, nil, key, nil)
            : EVP_DecryptInit_ex(context, cipher, nil, key, nil)
        guard keyed == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw .cryptoFailure("EVP cipher key")
        }
        self.mode = mode
        self.context = context
        self.encrypting = encrypting
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    /// AES-CM: XORs `count` bytes at `data` with the keystream that starts at the 16-byte `iv`.
    func applyKeystream(iv: UnsafePointer<UInt8>, _ data: UnsafeMutablePointer<UInt8>, count: Int) throws(SRTPError) {
        var written: Int32 = 0
        guard EVP_EncryptInit_ex(context, nil, nil, nil, iv) == 1,
              count == 0 || EVP_EncryptUpdate(context, data, &written, data, Int32(count)) == 1 else {
            throw .cryptoFailure("AES-CM")
        }
    }

    /// GCM seal: encrypts `count` bytes at `data` in place, authenticating `aad` too, and writes
    /// the 16-byte tag at `tag`.
    func seal(iv: UnsafePointer<UInt8>, aad: UnsafeRawBufferPointer, _ data: UnsafeMutablePointer<UInt8>, count: Int,
              tag: UnsafeMutablePointer<UInt8>) throws(SRTPError) {
        var written: Int32 = 0
        var scratch = (UInt64(0), UInt64(0))
        let ok = withUnsafeMutableBytes(of: &scratch) { final in
            EVP_EncryptInit_ex(context, nil, nil, nil, iv) == 1
                && addAAD(aad)
                && (count == 0 || EVP_EncryptUpdate(context, data, &written, data, Int32(count)) == 1)
                && EVP_EncryptFinal_ex(context, final.baseAddress!.assumingMemoryBound(to: UInt8.self), &written) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(Self.gcmTagLength), tag) == 1
        }
        guard ok else { throw .cryptoFailure("AES-GCM seal") }
    }

    /// GCM open: decrypts `count` bytes at `data` in place and checks the 16-byte `tag` over
    /// them and `aad`. Throws `.authenticationFailed` when the tag does not verify (the bytes at
    /// `data` are garbage then).
    func open(iv: UnsafePointer<UInt8>, aad: UnsafeRawBufferPointer, _ data: UnsafeMutablePointer<UInt8>, count: Int,
              tag: UnsafeMutablePointer<UInt8>) throws(SRTPError) {
        var written: Int32 = 0
        var scratch = (UInt64(0), UInt64(0))
        let prepared = EVP_DecryptInit_ex(context, nil, nil, nil, iv) == 1
            && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(Self.gcmTagLength), tag) == 1
            && addAAD(aad)
            && (count == 0 || EVP_DecryptUpdate(context, data, &written, data, Int32(count)) == 1)
        guard prepared else { throw .cryptoFailure("AES-GCM open") }
        let verified = withUnsafeMutableBytes(of: &scratch) { final in
            EVP_DecryptFinal_ex(context, final.baseAddress!.assumingMemoryBound(to: UInt8.self), &written) == 1
        }
        guard verified else { throw .authenticationFailed }
    }

    private func addAAD(_ aad: UnsafeRawBufferPointer) -> Bool {
        guard let base = aad.baseAddress, !aad.isEmpty else { return true }
        var written: Int32 = 0
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        return encrypting
            ? EVP_EncryptUpdate(context, nil, &written, bytes, Int32(aad.count)) == 1
            : EVP_DecryptUpdate(context, nil, &written, bytes, Int32(aad.count)) == 1
    }
}
