import MediaTestSupport
@testable import AudioPipe
import Testing

/// `SRTPSender` and `SRTPReceiver` work in place: one reused buffer carries every packet of a
/// stream through protect and unprotect without being reallocated (storage identity, as
/// `JitterStorageReuseTests` checks for the jitter buffer), and give the same bytes as the
/// copying `SRTPSession`, which the libsrtp2 cross-checks and the RFC vectors hold.
@Suite struct SRTPInPlaceTests {
    static func base(_ buffer: [UInt8]) -> UnsafeRawPointer? {
        buffer.withUnsafeBytes { $0.baseAddress }
    }

    /// A sender keyed like `SRTPSessionTests.pair`'s alice, a receiver for what it sends, and
    /// alice herself (the copying session) for reference.
    static func halves(_ profile: SRTPProfile) throws -> (sender: SRTPSender, receiver: SRTPReceiver, alice: SRTPSession) {
        let alice = try SRTPSessionTests.pair(profile).alice
        let keyA = (0..<profile.keyLength).map { UInt8($0 + 1) }
        let saltA = (0..<profile.saltLength).map { UInt8($0 + 101) }
        return (try SRTPSender(profile: profile, key: keyA, salt: saltA),
                try SRTPReceiver(profile: profile, key: keyA, salt: saltA), alice)
    }

    @Test(arguments: SRTPProfile.allCases)
    func oneBufferCarriesEveryRTPPacketBothWays(profile: SRTPProfile) throws {
        let (sender, receiver, alice) = try Self.halves(profile)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1_500 + SRTPSender.maximumGrowth)
        let storage = Self.base(buffer)
        for sequence in UInt16(65_500)..<UInt16(65_535) {
            let packet = SRTPSessionTests.rtp(sequence: sequence, payloadLength: 60 + Int(sequence % 90))
            buffer.removeAll(keepingCapacity: true)
            buffer.append(contentsOf: packet)
            try sender.protectRTP(&buffer)
            #expect(Self.base(buffer) == storage, "protect reused the buffer")
            #expect(buffer == (try alice.protectRTP(packet)), "same bytes as the copying session")
            try receiver.unprotectRTP(&buffer)
            #expect(Self.base(buffer) == storage, "unprotect reused the buffer")
            #expect(buffer == packet)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func oneBufferCarriesEveryRTCPPacketBothWays(profile: SRTPProfile) throws {
        let (sender, receiver, alice) = try Self.halves(profile)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(200)
        let storage = Self.base(buffer)
        for round in 0..<20 {
            let report = SRTPSessionTests.rtcp(ssrc: UInt32(0x2000 + round % 3))
            buffer.removeAll(keepingCapacity: true)
            buffer.append(contentsOf: report)
            try sender.protectRTCP(&buffer)
            #expect(buffer.count == report.count + profile.rtcpTrailerLength)
            #expect(buffer == (try alice.protectRTCP(report)))
            try receiver.unprotectRTCP(&buffer)
            #expect(buffer == report)
            #expect(Self.base(buffer) == storage)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func aRefusedPacketKeepsItsLength(profile: SRTPProfile) throws {
        let (sender, receiver, _) = try Self.halves(profile)
        let packet = SRTPSessionTests.rtp(sequence: 40)
        var first = packet
        try sender.protectRTP(&first)
        var again = packet
        #expect(throws: SRTPError.replay) { try sender.protectRTP(&again) }
        #expect(again == packet, "a replayed index leaves the packet as it was")

        var forged = first
        forged[forged.count - 1] ^= 1
        #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotectRTP(&forged) }
        #expect(forged.count == first.count)
        try receiver.unprotectRTP(&first)
        #expect(first == packet, "a forged copy did not spend the genuine packet's index")
    }
}
