import MediaTestSupport
@testable import AudioPipe
import Testing

/// RFC 3711 Appendix B vectors, checked on the test's reference crypto, and libsrtp checked
/// against keys derived by that reference.
@Suite struct SRTPVectorTests {
    typealias Ref = SRTPReference

    // RFC 3711 B.3.
    let masterKey = Ref.hex("E1F97A0D3E018BE0D64FA32C06DE4139")
    let masterSalt = Ref.hex("0EC675AD498AFEEBB6960B3AABE6")
    let cipherKey = Ref.hex("C61E7A93744F39EE10734AFE3FF7A087")
    let cipherSalt = Ref.hex("30CBBC08863D8C85D49DB34A9AE1")
    let authKey = Ref.hex("""
        CEBE321F6FF7716B6FD4AB49AF256A15 6D38BAA48F0A0ACF3C34E2359E6CDBCE
        E049646C43D9327AD175578EF7227098 6371C10C9A369AC2F94A8C5FBCDDDC25
        6D6E919A48B610EF17C2041E47403576 6B68642C59BBFC2F34DB60DBDFB2
        """)

    @Test func appendixB2KeystreamFromReferenceAESCM() {
        let key = Ref.hex("2B7E151628AED2A6ABF7158809CF4F3C")
        let iv = Ref.srtpIV(sessionSalt: Ref.hex("F0F1F2F3F4F5F6F7F8F9FAFBFCFD"), ssrc: 0, index: 0)
        #expect(iv == Ref.hex("F0F1F2F3F4F5F6F7F8F9FAFBFCFD0000"))
        let head = Ref.aesCMKeystream(key: key, iv: iv, length: 48)
        #expect(head == Ref.hex("E03EAD0935C95E80E166B16DD92B4EB4 D23513162B02D0F72A43A2FE4A5F97AB 41E95B3BB0A2E8DD477901E4FCA894C0"))
        let tail = Ref.aesCMKeystream(key: key, iv: iv, firstBlock: 0xFEFF, length: 48)
        #expect(tail == Ref.hex("EC8CDF7398607CB0F2D21675EA9EA1E4 362B7C3C6773516318A077D7FC5073AE 6A2CC3787889374FBEB4C81B17BA6C44"))
        // OpenSSL's AES-CTR is the same keystream (used below to decrypt libsrtp output).
        #expect(Ref.aesCTR(key: key, iv: iv, [UInt8](repeating: 0, count: 48)) == head)
    }

    @Test func appendixB3KeyDerivationFromReferencePRF() {
        #expect(Ref.deriveKey(masterKey: masterKey, masterSalt: masterSalt, label: 0, length: 16) == cipherKey)
        #expect(Ref.deriveKey(masterKey: masterKey, masterSalt: masterSalt, label: 2, length: 14) == cipherSalt)
        #expect(Ref.deriveKey(masterKey: masterKey, masterSalt: masterSalt, label: 1, length: 94) == authKey)
    }

    /// libsrtp keyed with the B.3 master key encrypts with the B.3 cipher key and salt and tags
    /// with the first 20 bytes of the B.3 auth key (HMAC-SHA1-80 over header, payload and ROC).
    @Test func libsrtpRTPMatchesAppendixB3SessionKeys() throws {
        let session = try SRTPSession(
            profile: .aes128CmSha1_80, localKey: masterKey, localSalt: masterSalt,
            remoteKey: masterKey, remoteSalt: masterSalt)
        let ssrc: UInt32 = 0xDEAD_BEEF
        let sequence: UInt16 = 0x1234
        let header: [UInt8] = [0x80, 0x0F, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0xDE, 0xCA, 0xFB, 0xAD,
                               0xDE, 0xAD, 0xBE, 0xEF]
        let payload = (0..<37).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
        let protected = try session.protectRTP(header + payload)

        #expect(protected.count == header.count + payload.count + 10)
        #expect(Array(protected.prefix(12)) == header)
        let ciphertext = Array(protected[12..<(12 + payload.count)])
        let iv = Ref.srtpIV(sessionSalt: cipherSalt, ssrc: ssrc, index: UInt64(sequence))
        #expect(Ref.aesCTR(key: cipherKey, iv: iv, ciphertext) == payload)

        let rolloverCounter: [UInt8] = [0, 0, 0, 0]
        let tag = Ref.hmacSHA1(key: Array(authKey.prefix(20)), header + ciphertext + rolloverCounter).prefix(10)
        #expect(Array(protected.suffix(10)) == Array(tag))
        #expect(try session.unprotectRTP(protected) == header + payload)
    }

    /// The same for SRTCP: labels 3/4/5 (RFC 3711 §4.3.2), the E flag and 31-bit SRTCP index in the
    /// trailer, IV from the SRTCP index, tag over the packet and the E||index word.
    @Test func libsrtpRTCPMatchesReferenceKeys() throws {
        let session = try SRTPSession(
            profile: .aes128CmSha1_80, localKey: masterKey, localSalt: masterSalt,
            remoteKey: masterKey, remoteSalt: masterSalt)
        let rtcpKey = Ref.deriveKey(masterKey: masterKey, masterSalt: masterSalt, label: 3, length: 16)
        let rtcpAuth = Ref.deriveKey(masterKey: masterKey, masterSalt: masterSalt, label: 4, length: 20)
        let rtcpSalt = Ref.deriveKey(masterKey: masterKey, masterSalt: masterSalt, label: 5, length: 14)
        let ssrc: UInt32 = 0x0102_0304
        // Receiver report with no blocks, then an APP-ish body so there is something to encrypt.
        let packet: [UInt8] = [0x80, 201, 0x00, 0x05, 0x01, 0x02, 0x03, 0x04] + (0..<16).map { UInt8($0) }
        let protected = try session.protectRTCP(packet)

        #expect(protected.count == packet.count + 4 + 10)
        #expect(Array(protected.prefix(8)) == Array(packet.prefix(8)))
        let trailer = Array(protected[packet.count..<(packet.count + 4)])
        #expect(trailer[0] & 0x80 != 0, "E flag set: the packet is encrypted")
        let index = UInt64(trailer[0] & 0x7F) << 24 | UInt64(trailer[1]) << 16 | UInt64(trailer[2]) << 8 | UInt64(trailer[3])
        let iv = Ref.srtpIV(sessionSalt: rtcpSalt, ssrc: ssrc, index: index)
        #expect(Ref.aesCTR(key: rtcpKey, iv: iv, Array(protected[8..<packet.count])) == Array(packet[8...]))
        let tag = Ref.hmacSHA1(key: rtcpAuth, Array(protected.prefix(packet.count + 4))).prefix(10)
        #expect(Array(protected.suffix(10)) == Array(tag))
        #expect(try session.unprotectRTCP(protected) == packet)
    }
}
