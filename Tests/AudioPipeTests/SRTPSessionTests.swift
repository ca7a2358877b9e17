import MediaTestSupport
@testable import AudioPipe
import CSRTP
import Testing

/// SRTPSession round trips and error paths, for both profiles.
@Suite struct SRTPSessionTests {
    /// Two sessions keyed crosswise, as the two ends of a call are.
    static func pair(_ profile: SRTPProfile) throws -> (alice: SRTPSession, bob: SRTPSession) {
        let keyA = (0..<profile.keyLength).map { UInt8($0 + 1) }
        let saltA = (0..<profile.saltLength).map { UInt8($0 + 101) }
        let keyB = (0..<profile.keyLength).map { UInt8(200 - $0) }
        let saltB = (0..<profile.saltLength).map { UInt8(50 + $0) }
        let alice = try SRTPSession(profile: profile, localKey: keyA, localSalt: saltA, remoteKey: keyB, remoteSalt: saltB)
        let bob = try SRTPSession(profile: profile, localKey: keyB, localSalt: saltB, remoteKey: keyA, remoteSalt: saltA)
        return (alice, bob)
    }

    /// An RTP packet: version 2, payload type 111, optional CSRCs and a one-word header extension.
    static func rtp(sequence: UInt16, ssrc: UInt32 = 0x1122_3344, payloadLength: Int = 160,
                    csrcs: Int = 0, withExtension: Bool = false) -> [UInt8] {
        var packet: [UInt8] = [0x80 | UInt8(csrcs) | (withExtension ? 0x10 : 0), 111,
                               UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x03, 0xC0]
        packet += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        for index in 0..<csrcs { packet += [0, 0, 0, UInt8(index + 1)] }
        if withExtension { packet += [0xBE, 0xDE, 0x00, 0x01, 0x10, 0xAA, 0x00, 0x00] }
        return packet + (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(sequence)) }
    }

    /// A sender report with no report blocks.
    static func rtcp(ssrc: UInt32 = 0x1122_3344) -> [UInt8] {
        [0x80, 200, 0x00, 0x06] + withUnsafeBytes(of: ssrc.bigEndian, Array.init) + [UInt8](repeating: 0x5A, count: 20)
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtpRoundTripsBothWays(profile: SRTPProfile) throws {
        let (alice, bob) = try Self.pair(profile)
        for sequence in UInt16(65_530)...UInt16(65_535) {
            let packet = Self.rtp(sequence: sequence)
            let protected = try alice.protectRTP(packet)
            #expect(protected.count == packet.count + profile.rtpTagLength)
            #expect(protected[12...] != packet[12...])
            #expect(try bob.unprotectRTP(protected) == packet)
            let reply = Self.rtp(sequence: sequence, ssrc: 0x5566_7788)
            #expect(try alice.unprotectRTP(try bob.protectRTP(reply)) == reply)
        }
        // Rollover past 65535 keeps working.
        let wrapped = Self.rtp(sequence: 2)
        #expect(try bob.unprotectRTP(try alice.protectRTP(wrapped)) == wrapped)
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtpWithCSRCsAndExtensionRoundTrips(profile: SRTPProfile) throws {
        let (alice, bob) = try Self.pair(profile)
        let packet = Self.rtp(sequence: 7, payloadLength: 33, csrcs: 2, withExtension: true)
        let protected = try alice.protectRTP(packet)
        #expect(Array(protected.prefix(28)) == Array(packet.prefix(28)), "header, CSRCs and extension stay clear")
        #expect(try bob.unprotectRTP(protected) == packet)
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtcpRoundTripsBothWays(profile: SRTPProfile) throws {
        let (alice, bob) = try Self.pair(profile)
        for _ in 0..<3 {
            let packet = Self.rtcp()
            let protected = try alice.protectRTCP(packet)
            #expect(protected.count == packet.count + profile.rtcpTrailerLength)
            #expect(try bob.unprotectRTCP(protected) == packet)
            #expect(try alice.unprotectRTCP(try bob.protectRTCP(packet)) == packet)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func tamperedPacketsFailAuthentication(profile: SRTPProfile) throws {
        let (alice, bob) = try Self.pair(profile)
        var payloadFlip = try alice.protectRTP(Self.rtp(sequence: 1))
        payloadFlip[20] ^= 0x01
        #expect(throws: SRTPError.authenticationFailed) { try bob.unprotectRTP(payloadFlip) }
        var tagFlip = try alice.protectRTP(Self.rtp(sequence: 2))
        tagFlip[tagFlip.count - 1] ^= 0x80
        #expect(throws: SRTPError.authenticationFailed) { try bob.unprotectRTP(tagFlip) }
        var headerFlip = try alice.protectRTP(Self.rtp(sequence: 3))
        headerFlip[7] ^= 0x01  // timestamp is authenticated
        #expect(throws: SRTPError.authenticationFailed) { try bob.unprotectRTP(headerFlip) }
        var rtcpFlip = try alice.protectRTCP(Self.rtcp())
        rtcpFlip[10] ^= 0x01
        #expect(throws: SRTPError.authenticationFailed) { try bob.unprotectRTCP(rtcpFlip) }
        // A good packet still passes after the failures.
        let packet = Self.rtp(sequence: 4)
        #expect(try bob.unprotectRTP(try alice.protectRTP(packet)) == packet)
    }

    @Test(arguments: SRTPProfile.allCases)
    func replayedPacketsAreRefused(profile: SRTPProfile) throws {
        let (alice, bob) = try Self.pair(profile)
        let protected = try alice.protectRTP(Self.rtp(sequence: 100))
        _ = try bob.unprotectRTP(protected)
        #expect(throws: SRTPError.replay) { try bob.unprotectRTP(protected) }
        let rtcp = try alice.protectRTCP(Self.rtcp())
        _ = try bob.unprotectRTCP(rtcp)
        #expect(throws: SRTPError.replay) { try bob.unprotectRTCP(rtcp) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func truncatedAndMalformedPacketsAreErrors(profile: SRTPProfile) throws {
        let (alice, bob) = try Self.pair(profile)
        let protected = try alice.protectRTP(Self.rtp(sequence: 9))
        #expect(throws: SRTPError.badLength) { try bob.unprotectRTP(Array(protected.prefix(5))) }
        #expect(throws: SRTPError.badLength) { try bob.unprotectRTP(Array(protected.prefix(12 + profile.rtpTagLength - 1))) }
        #expect(throws: SRTPError.authenticationFailed) { try bob.unprotectRTP(Array(protected.dropLast())) }
        #expect(throws: SRTPError.badLength) { try bob.unprotectRTP([]) }
        #expect(throws: SRTPError.badLength) { try alice.protectRTP([0x80, 0, 0]) }
        #expect(throws: SRTPError.badLength) { try alice.protectRTP([UInt8](repeating: 0, count: 40)) }  // version 0
        #expect(throws: SRTPError.badLength) { try alice.protectRTP([0x90] + [UInt8](repeating: 0, count: 13)) }  // extension cut
        #expect(throws: SRTPError.badLength) { try alice.protectRTCP([0x80, 200, 0]) }
        #expect(throws: SRTPError.badLength) { try bob.unprotectRTCP(Array(try alice.protectRTCP(Self.rtcp()).prefix(10))) }
        #expect(throws: SRTPError.badLength) { try alice.protectRTP(Self.rtp(sequence: 1, payloadLength: 70_000)) }
    }

    @Test func wrongKeyLengthsAreRefused() {
        #expect(throws: SRTPError.invalidKeyLength(expected: 16, actual: 15)) {
            try SRTPSession(profile: .aes128CmSha1_80, localKey: [UInt8](repeating: 1, count: 15),
                            localSalt: [UInt8](repeating: 1, count: 14),
                            remoteKey: [UInt8](repeating: 1, count: 16), remoteSalt: [UInt8](repeating: 1, count: 14))
        }
        #expect(throws: SRTPError.invalidKeyLength(expected: 12, actual: 14)) {
            try SRTPSession(profile: .aeadAes128Gcm, localKey: [UInt8](repeating: 1, count: 16),
                            localSalt: [UInt8](repeating: 1, count: 12),
                            remoteKey: [UInt8](repeating: 1, count: 16), remoteSalt: [UInt8](repeating: 1, count: 14))
        }
    }

    @Test func errorsDescribeThemselves() {
        #expect(SRTPError.authenticationFailed.description == "SRTP authentication failed")
        #expect(SRTPError.keyExpired.description == "SRTP key expired (SRTCP index exhausted)")
        #expect(SRTPError(libsrtpStatus: srtp_err_status_replay_old) == .replay)
        #expect(SRTPError.cryptoFailure("HMAC").description == "SRTP crypto failure in HMAC")
    }

    @Test func profilesHaveTheirIANAIdsAndNames() {
        #expect(SRTPProfile.aes128CmSha1_80.rawValue == 1 && SRTPProfile.aeadAes128Gcm.rawValue == 7)
        #expect(SRTPProfile(name: "SRTP_AEAD_AES_128_GCM") == .aeadAes128Gcm)
        #expect(SRTPProfile(name: "SRTP_AES128_CM_SHA1_80") == .aes128CmSha1_80)
        #expect(SRTPProfile(name: "SRTP_NULL_SHA1_80") == nil)
    }
}
