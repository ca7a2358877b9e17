import CSSL

/// One direction of an SRTP session (RFC 3711 with AES-CM and HMAC-SHA1-80, or RFC 7714
/// AES-GCM): the session keys derived from one master key and salt, and per SSRC the packet
/// index and replay window. Works on a caller's buffer in place (`SRTPInPlace` hands it the
/// bytes of the packet array).
///
/// Not thread-safe and needs no lock: owned by one `SRTPSender` or `SRTPReceiver`, each used by
/// one thread. A class because it owns OpenSSL contexts.
final class SRTPCryptoContext {
    let profile: SRTPProfile
    private let rtpCipher: EVPCipher
    private let rtcpCipher: EVPCipher
    private let rtpAuth: HMACSHA1?
    private let rtcpAuth: HMACSHA1?
    private let rtpSalt: [UInt8]
    private let rtcpSalt: [UInt8]
    private var rtpWindows: [UInt32: SRTPReplayWindow] = [:]
    private var rtcpWindows: [UInt32: SRTPReplayWindow] = [:]
    private var rtcpNextIndex: [UInt32: UInt32] = [:]
    /// A scratch IV (16 bytes; GCM uses the first 12), kept to avoid allocating per packet.
    private var iv = [UInt8](repeating: 0, count: 16)

    /// Largest SRTCP index (31 bits).
    static let maximumRTCPIndex: UInt32 = 0x7FFF_FFFF
    /// Bytes of the AES-CM HMAC-SHA1-80 tag.
    static let cmTagLength = 10

    init(profile: SRTPProfile, masterKey: [UInt8], masterSalt: [UInt8], encrypting: Bool) throws(SRTPError) {
        self.profile = profile
        typealias KDF = SRTPKeyDerivation
        let saltLength = profile.saltLength
        let rtpKey = try KDF.derive(masterKey: masterKey, masterSalt: masterSalt, label: .rtpEncryption, length: 16)
        let rtcpKey = try KDF.derive(masterKey: masterKey, masterSalt: masterSalt, label: .rtcpEncryption, length: 16)
        rtpSalt = try KDF.derive(masterKey: masterKey, masterSalt: masterSalt, label: .rtpSalt, length: saltLength)
        rtcpSalt = try KDF.derive(masterKey: masterKey, masterSalt: masterSalt, label: .rtcpSalt, length: saltLength)
        switch profile {
        case .aes128CmSha1_80:
            rtpCipher = try EVPCipher(mode: .counter, key: rtpKey, encrypting: encrypting)
            rtcpCipher = try EVPCipher(mode: .counter, key: rtcpKey, encrypting: encrypting)
            rtpAuth = try HMACSHA1(key: KDF.derive(masterKey: masterKey, masterSalt: masterSalt, label: .rtpAuthentication, length: 20))
            rtcpAuth = try HMACSHA1(key: KDF.derive(masterKey: masterKey, masterSalt: masterSalt, label: .rtcpAuthentication, length: 20))
        case .aeadAes128Gcm:
            rtpCipher = try EVPCipher(mode: .gcm, key: rtpKey, encrypting: encrypting)
            rtcpCipher = try EVPCipher(mode: .gcm, key: rtcpKey, encrypting: encrypting)
            rtpAuth = nil
            rtcpAuth = nil
        }
    }

    // MARK: - RTP

    /// Protects the RTP packet in `buffer[0..<length]` (header `headerLength` bytes) in place and
    /// appends the tag; `buffer` has room for it. Returns the SRTP length.
    func protectRTP(_ buffer: UnsafeMutableBufferPointer<UInt8>, length: Int, headerLength: Int) throws(SRTPError) -> Int {
        let ssrc = Self.word(buffer, at: 8)
        let sequence = UInt16(buffer[2]) << 8 | UInt16(buffer[3])
        var window = rtpWindows[ssrc] ?? SRTPReplayWindow()
        let index = window.estimateIndex(sequence: sequence)
        guard window.isFresh(index) else { throw .replay }
        let payload = buffer.baseAddress! + headerLength
        let payloadLength = length - headerLength
        switch profile {
        case .aes128CmSha1_80:
            try withRTPIV(salt: rtpSalt, ssrc: ssrc, index: index) { (ivBytes) throws(SRTPError) in
                try rtpCipher.applyKeystream(iv: ivBytes, payload, count: payloadLength)
            }
            try authenticate(rtpAuth!, buffer, length: length, roc: UInt32(truncatingIfNeeded: index >> 16), tagAt: length)
            window.accept(index)
            rtpWindows[ssrc] = window
            return length + Self.cmTagLength
        case .aeadAes128Gcm:
            try withGCMRTPIV(ssrc: ssrc, index: index) { (ivBytes) throws(SRTPError) in
                try rtpCipher.seal(iv: ivBytes, aad: UnsafeRawBufferPointer(start: buffer.baseAddress, count: headerLength), payload,
                                   count: payloadLength, tag: buffer.baseAddress! + length)
            }
            window.accept(index)
            rtpWindows[ssrc] = window
            return length + EVPCipher.gcmTagLength
        }
    }

    /// Checks and decrypts the SRTP packet in `buffer[0..<length]` in place. Returns the RTP length.
    func unprotectRTP(_ buffer: UnsafeMutableBufferPointer<UInt8>, length: Int, headerLength: Int) throws(SRTPError) -> Int {
        let ssrc = Self.word(buffer, at: 8)
        let sequence = UInt16(buffer[2]) << 8 | UInt16(buffer[3])
        var window = rtpWindows[ssrc] ?? SRTPReplayWindow()
        let index = window.estimateIndex(sequence: sequence)
        guard window.isFresh(index) else { throw .replay }
        let tagLength = profile.rtpTagLength
        let protectedLength = length - tagLength
        let payload = buffer.baseAddress! + headerLength
        let payloadLength = protectedLength - headerLength
        switch profile {
        case .aes128CmSha1_80:
            try verify(rtpAuth!, buffer, length: protectedLength, roc: UInt32(truncatingIfNeeded: index >> 16))
            try withRTPIV(salt: rtpSalt, ssrc: ssrc, index: index) { (ivBytes) throws(SRTPError) in
                try rtpCipher.applyKeystream(iv: ivBytes, payload, count: payloadLength)
            }
        case .aeadAes128Gcm:
            try withGCMRTPIV(ssrc: ssrc, index: index) { (ivBytes) throws(SRTPError) in
                try rtpCipher.open(iv: ivBytes, aad: UnsafeRawBufferPointer(start: buffer.baseAddress, count: headerLength), payload,
                                   count: payloadLength, tag: buffer.baseAddress! + protectedLength)
            }
        }
        window.accept(index)
        rtpWindows[ssrc] = window
        return protectedLength
    }

    // MARK: - RTCP

    /// Protects the RTCP compound in `buffer[0..<length]` in place, appending the E flag and
    /// SRTCP index word and the tag (CM: index then tag; GCM: tag then index, RFC 7714 §9).
    func protectRTCP(_ buffer: UnsafeMutableBufferPointer<UInt8>, length: Int) throws(SRTPError) -> Int {
        let ssrc = Self.word(buffer, at: 4)
        let index = rtcpNextIndex[ssrc] ?? 1
        guard index <= Self.maximumRTCPIndex else { throw .keyExpired }
        rtcpNextIndex[ssrc] = index + 1
        let word = 0x8000_0000 | index
        let body = buffer.baseAddress! + 8
        switch profile {
        case .aes128CmSha1_80:
            try withRTPIV(salt: rtcpSalt, ssrc: ssrc, index: UInt64(index)) { (ivBytes) throws(SRTPError) in
                try rtcpCipher.applyKeystream(iv: ivBytes, body, count: length - 8)
            }
            Self.store(word, buffer, at: length)
            try authenticate(rtcpAuth!, buffer, length: length + 4, roc: nil, tagAt: length + 4)
            return length + 4 + Self.cmTagLength
        case .aeadAes128Gcm:
            Self.store(word, buffer, at: length + EVPCipher.gcmTagLength)
            var aad = Self.rtcpAAD(buffer, word: word)
            try withGCMRTCPIV(ssrc: ssrc, index: index) { (ivBytes) throws(SRTPError) in
                try withUnsafeBytes(of: &aad) { (aadBytes) throws(SRTPError) in
                    try rtcpCipher.seal(iv: ivBytes, aad: aadBytes, body, count: length - 8, tag: buffer.baseAddress! + length)
                }
            }
            return length + EVPCipher.gcmTagLength + 4
        }
    }

    /// Checks and (when the E flag says so) decrypts the SRTCP packet in `buffer[0..<length]` in
    /// place. Returns the RTCP length.
    func unprotectRTCP(_ buffer: UnsafeMutableBufferPointer<UInt8>, length: Int) throws(SRTPError) -> Int {
        let ssrc = Self.word(buffer, at: 4)
        let tagLength = profile.rtpTagLength
        let rtcpLength = length - 4 - tagLength
        let wordOffset = profile == .aes128CmSha1_80 ? rtcpLength : rtcpLength + tagLength
        let word = Self.word(buffer, at: wordOffset)
        let index = word & Self.maximumRTCPIndex
        let encrypted = word & 0x8000_0000 != 0
        var window = rtcpWindows[ssrc] ?? SRTPReplayWindow()
        guard window.isFresh(UInt64(index)) else { throw .replay }
        let body = buffer.baseAddress! + 8
        switch profile {
        case .aes128CmSha1_80:
            try verify(rtcpAuth!, buffer, length: rtcpLength + 4, roc: nil)
            if encrypted {
                try withRTPIV(salt: rtcpSalt, ssrc: ssrc, index: UInt64(index)) { (ivBytes) throws(SRTPError) in
                    try rtcpCipher.applyKeystream(iv: ivBytes, body, count: rtcpLength - 8)
                }
            }
        case .aeadAes128Gcm:
            guard encrypted else { throw .unsupported("unencrypted SRTCP with AES-GCM") }
            var aad = Self.rtcpAAD(buffer, word: word)
            try withGCMRTCPIV(ssrc: ssrc, index: index) { (ivBytes) throws(SRTPError) in
                try withUnsafeBytes(of: &aad) { (aadBytes) throws(SRTPError) in
                    try rtcpCipher.open(iv: ivBytes, aad: aadBytes, body, count: rtcpLength - 8,
                                        tag: buffer.baseAddress! + rtcpLength)
                }
            }
        }
        window.accept(UInt64(index))
        rtcpWindows[ssrc] = window
        return rtcpLength
    }

    // MARK: - IVs and tags

    /// AES-CM IV (RFC 3711 §4.1.1): salt·2^16 xor SSRC·2^64 xor index·2^16.
    private func withRTPIV(salt: [UInt8], ssrc: UInt32, index: UInt64,
                           _ body: (UnsafePointer<UInt8>) throws(SRTPError) -> Void) throws(SRTPError) {
        for byte in 0..<14 { iv[byte] = salt[byte] }
        iv[14] = 0
        iv[15] = 0
        for byte in 0..<4 { iv[4 + byte] ^= UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * UInt32(byte))) }
        for byte in 0..<6 { iv[8 + byte] ^= UInt8(truncatingIfNeeded: index >> (40 - 8 * UInt64(byte))) }
        try iv.withUnsafeBufferPointer { (bytes) throws(SRTPError) in try body(bytes.baseAddress!) }
    }

    /// GCM RTP IV (RFC 7714 §8.1): (0^16 || SSRC || ROC || SEQ) xor salt.
    private func withGCMRTPIV(ssrc: UInt32, index: UInt64,
                              _ body: (UnsafePointer<UInt8>) throws(SRTPError) -> Void) throws(SRTPError) {
        try withGCMIV(salt: rtpSalt, ssrc: ssrc, low: UInt64(index & 0xFFFF_FFFF_FFFF), body)
    }

    /// GCM SRTCP IV (RFC 7714 §9.1): (0^16 || SSRC || 0^16 || 0 || index) xor salt.
    private func withGCMRTCPIV(ssrc: UInt32, index: UInt32,
                               _ body: (UnsafePointer<UInt8>) throws(SRTPError) -> Void) throws(SRTPError) {
        try withGCMIV(salt: rtcpSalt, ssrc: ssrc, low: UInt64(index), body)
    }

    private func withGCMIV(salt: [UInt8], ssrc: UInt32, low: UInt64,
                           _ body: (UnsafePointer<UInt8>) throws(SRTPError) -> Void) throws(SRTPError) {
        for byte in 0..<12 { iv[byte] = salt[byte] }
        for byte in 0..<4 { iv[2 + byte] ^= UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * UInt32(byte))) }
        for byte in 0..<6 { iv[6 + byte] ^= UInt8(truncatingIfNeeded: low >> (40 - 8 * UInt64(byte))) }
        try iv.withUnsafeBufferPointer { (bytes) throws(SRTPError) in try body(bytes.baseAddress!) }
    }

    /// Writes the HMAC-SHA1-80 tag of `buffer[0..<length]` (and the ROC for RTP) at `tagAt`.
    private func authenticate(_ auth: HMACSHA1, _ buffer: UnsafeMutableBufferPointer<UInt8>, length: Int, roc: UInt32?,
                              tagAt offset: Int) throws(SRTPError) {
        var rocWord = (roc ?? 0).bigEndian
        try withUnsafeBytes(of: &rocWord) { (rocBytes) throws(SRTPError) in
            try auth.tag(UnsafeRawBufferPointer(start: buffer.baseAddress, count: length), suffix: roc == nil ? UnsafeRawBufferPointer(start: nil, count: 0) : rocBytes,
                         length: Self.cmTagLength, into: buffer.baseAddress! + offset)
        }
    }

    /// Checks the HMAC-SHA1-80 tag that follows `buffer[0..<length]`, in constant time.
    private func verify(_ auth: HMACSHA1, _ buffer: UnsafeMutableBufferPointer<UInt8>, length: Int, roc: UInt32?) throws(SRTPError) {
        var expected = (UInt64(0), UInt64(0))
        let matches = try withUnsafeMutableBytes(of: &expected) { (tag) throws(SRTPError) -> Bool in
            let bytes = tag.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var rocWord = (roc ?? 0).bigEndian
            try withUnsafeBytes(of: &rocWord) { (rocBytes) throws(SRTPError) in
                try auth.tag(UnsafeRawBufferPointer(start: buffer.baseAddress, count: length),
                             suffix: roc == nil ? UnsafeRawBufferPointer(start: nil, count: 0) : rocBytes,
                             length: Self.cmTagLength, into: bytes)
            }
            return CRYPTO_memcmp(bytes, buffer.baseAddress! + length, Self.cmTagLength) == 0
        }
        guard matches else { throw .authenticationFailed }
    }

    /// The 12 bytes of GCM SRTCP additional data: the first 8 header bytes, then E || index.
    private static func rtcpAAD(_ buffer: UnsafeMutableBufferPointer<UInt8>, word: UInt32)
        -> (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) {
        (buffer[0], buffer[1], buffer[2], buffer[3], buffer[4], buffer[5], buffer[6], buffer[7],
         UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word))
    }

    private static func word(_ buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> UInt32 {
        UInt32(buffer[offset]) << 24 | UInt32(buffer[offset + 1]) << 16 | UInt32(buffer[offset + 2]) << 8 | UInt32(buffer[offset + 3])
    }

    private static func store(_ word: UInt32, _ buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        buffer[offset] = UInt8(word >> 24)
        buffer[offset + 1] = UInt8(truncatingIfNeeded: word >> 16)
        buffer[offset + 2] = UInt8(truncatingIfNeeded: word >> 8)
        buffer[offset + 3] = UInt8(truncatingIfNeeded: word)
    }
}
