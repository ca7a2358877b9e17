import MediaTestSupport
@testable import AudioPipe
import Testing

/// Our SRTP (OpenSSL EVP) against libsrtp2 as the reference: each must decrypt what the other
/// encrypts, for both profiles, RTP and RTCP, headers with CSRCs and extensions, the sequence
/// number rollover, and reject what the other rejects.
@Suite struct SRTPLibsrtpInteropTests {
    static let keyA = (0..<16).map { UInt8($0 &* 7 &+ 3) }
    static let keyB = (0..<16).map { UInt8(250 - $0 * 3) }

    static func salt(_ profile: SRTPProfile, _ seed: Int) -> [UInt8] {
        (0..<profile.saltLength).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ seed) }
    }

    /// Ours on side A, libsrtp on side B, keyed crosswise.
    static func pair(_ profile: SRTPProfile) throws -> (ours: SRTPSession, reference: LibsrtpSession) {
        let ours = try SRTPSession(profile: profile, localKey: keyA, localSalt: salt(profile, 1),
                                   remoteKey: keyB, remoteSalt: salt(profile, 2))
        let reference = try LibsrtpSession(profile: profile, localKey: keyB, localSalt: salt(profile, 2),
                                           remoteKey: keyA, remoteSalt: salt(profile, 1))
        return (ours, reference)
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtpBothWaysAcrossTheRollover(profile: SRTPProfile) throws {
        let (ours, reference) = try Self.pair(profile)
        var sequence: UInt16 = 65_500
        for step in 0..<100 {
            let packet = SRTPSessionTests.rtp(sequence: sequence, ssrc: 0x0A0B_0C0D, payloadLength: 20 + step)
            let protected = try ours.protectRTP(packet)
            #expect(try reference.unprotectRTP(protected) == packet)
            let reply = SRTPSessionTests.rtp(sequence: sequence &+ 7, ssrc: 0x5555_0001, payloadLength: 33)
            #expect(try ours.unprotectRTP(try reference.protectRTP(reply)) == reply)
            sequence &+= 1
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func identicalBytesForTheSamePackets(profile: SRTPProfile) throws {
        let ours = try SRTPSession(profile: profile, localKey: Self.keyA, localSalt: Self.salt(profile, 1),
                                   remoteKey: Self.keyB, remoteSalt: Self.salt(profile, 2))
        let reference = try LibsrtpSession(profile: profile, localKey: Self.keyA, localSalt: Self.salt(profile, 1),
                                           remoteKey: Self.keyB, remoteSalt: Self.salt(profile, 2))
        for sequence in [UInt16(1), 2, 3, 40_000, 65_535, 0, 5] {
            let packet = SRTPSessionTests.rtp(sequence: sequence, payloadLength: 60, csrcs: 1, withExtension: true)
            #expect(try ours.protectRTP(packet) == reference.protectRTP(packet), "sequence \(sequence)")
        }
        // SRTCP: libsrtp numbers its first packet 1, as we do, so the bytes match too.
        for _ in 0..<3 {
            let report = SRTPSessionTests.rtcp(ssrc: 0xFEED_BEEF)
            #expect(try ours.protectRTCP(report) == reference.protectRTCP(report))
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtcpBothWays(profile: SRTPProfile) throws {
        let (ours, reference) = try Self.pair(profile)
        for round in 0..<20 {
            let report = SRTPSessionTests.rtcp(ssrc: UInt32(0x1000 + round % 3))
            #expect(try reference.unprotectRTCP(try ours.protectRTCP(report)) == report)
            #expect(try ours.unprotectRTCP(try reference.protectRTCP(report)) == report)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func bothRefuseTamperingAndReplays(profile: SRTPProfile) throws {
        let (ours, reference) = try Self.pair(profile)
        let fromReference = try reference.protectRTP(SRTPSessionTests.rtp(sequence: 10))
        var flipped = fromReference
        flipped[14] ^= 0x40
        #expect(throws: SRTPError.authenticationFailed) { try ours.unprotectRTP(flipped) }
        _ = try ours.unprotectRTP(fromReference)
        #expect(throws: SRTPError.replay) { try ours.unprotectRTP(fromReference) }

        let fromOurs = try ours.protectRTP(SRTPSessionTests.rtp(sequence: 10))
        var tampered = fromOurs
        tampered[tampered.count - 2] ^= 0x01
        #expect(throws: SRTPError.authenticationFailed) { try reference.unprotectRTP(tampered) }
        _ = try reference.unprotectRTP(fromOurs)
        #expect(throws: SRTPError.replay) { try reference.unprotectRTP(fromOurs) }
        // Protecting the same sequence number twice would reuse the keystream: both refuse it.
        #expect(throws: SRTPError.replay) { try ours.protectRTP(SRTPSessionTests.rtp(sequence: 10)) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func reorderedPacketsInsideTheWindowAreAccepted(profile: SRTPProfile) throws {
        let (ours, reference) = try Self.pair(profile)
        let packets = (UInt16(0)..<UInt16(200)).map { SRTPSessionTests.rtp(sequence: $0 &+ 65_400) }
        let protected = try packets.map { try reference.protectRTP($0) }
        // Deliver in a shuffled but deterministic order within 100 packets, then an old one.
        var order = Array(0..<150)
        for index in stride(from: 0, to: 140, by: 7) { order.swapAt(index, index + 5) }
        for index in order { #expect(try ours.unprotectRTP(protected[index]) == packets[index]) }
        for index in 150..<200 { #expect(try ours.unprotectRTP(protected[index]) == packets[index]) }
        #expect(throws: SRTPError.replay) { try ours.unprotectRTP(protected[10]) }  // 190 behind: too old
    }
}
