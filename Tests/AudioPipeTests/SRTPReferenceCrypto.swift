import CSSL

/// An independent reference for SRTP's crypto (RFC 3711), built in the tests on OpenSSL's
/// AES-128-ECB, AES-128-CTR and HMAC-SHA1, to check libsrtp against the RFC's numbers.
enum SRTPReference {
    /// Bytes from hex text; spaces are ignored. Traps on bad hex (test constants only).
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        precondition(digits.count % 2 == 0, "odd hex length")
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    /// One AES-128 block encryption (ECB, no padding).
    static func aesBlock(key: [UInt8], _ block: [UInt8]) -> [UInt8] {
        precondition(key.count == 16 && block.count == 16)
        return evp(cipher: EVP_aes_128_ecb(), key: key, iv: nil, input: block)
    }

    /// AES-CM keystream (RFC 3711 §4.1.1): AES of `iv + j` for j = 0, 1, ... (j added to the low
    /// 16 bits, as the RFC's counter is), `length` bytes starting at block `firstBlock`.
    static func aesCMKeystream(key: [UInt8], iv: [UInt8], firstBlock: Int = 0, length: Int) -> [UInt8] {
        var stream: [UInt8] = []
        var block = firstBlock
        while stream.count < length {
            var counter = iv
            var carry = block
            for index in stride(from: 15, through: 0, by: -1) where carry > 0 {
                let sum = Int(counter[index]) + (carry & 0xFF)
                counter[index] = UInt8(sum & 0xFF)
                carry = (carry >> 8) + (sum >> 8)
            }
            stream += aesBlock(key: key, counter)
            block += 1
        }
        return Array(stream.prefix(length))
    }

    /// The SRTP key derivation PRF (RFC 3711 §4.3.1/4.3.3) with key_derivation_rate 0:
    /// x = label || 0^48 xor master salt, keystream of AES-CM(master key, x * 2^16).
    static func deriveKey(masterKey: [UInt8], masterSalt: [UInt8], label: UInt8, length: Int) -> [UInt8] {
        precondition(masterSalt.count == 14)
        var x = masterSalt
        x[7] ^= label  // label sits just before the 48-bit (index DIV kdr) field
        return aesCMKeystream(key: masterKey, iv: x + [0, 0], length: length)
    }

    /// The AES-CM IV of an SRTP packet (RFC 3711 §4.1.1): (salt * 2^16) xor (SSRC * 2^64) xor (index * 2^16).
    static func srtpIV(sessionSalt: [UInt8], ssrc: UInt32, index: UInt64) -> [UInt8] {
        var iv = sessionSalt + [0, 0]
        for byte in 0..<4 { iv[4 + byte] ^= UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * UInt32(byte))) }
        for byte in 0..<6 { iv[8 + byte] ^= UInt8(truncatingIfNeeded: index >> (40 - 8 * UInt64(byte))) }
        return iv
    }

    /// AES-128-CTR over `input` with OpenSSL's EVP (a 128-bit big-endian counter starting at `iv`).
    static func aesCTR(key: [UInt8], iv: [UInt8], _ input: [UInt8]) -> [UInt8] {
        evp(cipher: EVP_aes_128_ctr(), key: key, iv: iv, input: input)
    }

    /// HMAC-SHA1 (20 bytes).
    static func hmacSHA1(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        _ = HMAC(EVP_sha1(), key, Int32(key.count), data, data.count, &digest, &length)
        return Array(digest.prefix(Int(length)))
    }

    private static func evp(cipher: OpaquePointer?, key: [UInt8], iv: [UInt8]?, input: [UInt8]) -> [UInt8] {
        let context = EVP_CIPHER_CTX_new()
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        var ok = EVP_EncryptInit_ex(context, cipher, nil, key, iv) == 1
        ok = ok && EVP_CIPHER_CTX_set_padding(context, 0) == 1
        ok = ok && EVP_EncryptUpdate(context, &output, &written, input, Int32(input.count)) == 1
        precondition(ok, "EVP encryption failed")
        return Array(output.prefix(Int(written)))
    }
}
