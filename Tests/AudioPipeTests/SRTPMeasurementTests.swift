import MediaTestSupport
@testable import AudioPipe
import Foundation
import Testing

/// SRTP cost per packet, ours (OpenSSL EVP) next to libsrtp2 (Debian's, on NSS), in thread CPU
/// time; only when `AUDIOPIPE_MEASURE=1` (prints numbers, asserts no timing).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["AUDIOPIPE_MEASURE"] == "1"))
struct SRTPMeasurementTests {
    static func cpuSeconds(_ body: () throws -> Void) rethrows -> Double {
        var start = timespec()
        var end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        try body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    @Test(arguments: SRTPProfile.allCases)
    func measureOursAgainstLibsrtp(profile: SRTPProfile) throws {
        typealias Keys = SRTPLibsrtpInteropTests
        let count = 50_000
        let packets = (0..<count).map { SRTPSessionTests.rtp(sequence: UInt16(truncatingIfNeeded: $0), payloadLength: 120) }
        let oursSender = try SRTPSession(profile: profile, localKey: Keys.keyA, localSalt: Keys.salt(profile, 1),
                                         remoteKey: Keys.keyB, remoteSalt: Keys.salt(profile, 2))
        let oursReceiver = try SRTPSession(profile: profile, localKey: Keys.keyB, localSalt: Keys.salt(profile, 2),
                                           remoteKey: Keys.keyA, remoteSalt: Keys.salt(profile, 1))
        let libSender = try LibsrtpSession(profile: profile, localKey: Keys.keyA, localSalt: Keys.salt(profile, 1),
                                           remoteKey: Keys.keyB, remoteSalt: Keys.salt(profile, 2))
        let libReceiver = try LibsrtpSession(profile: profile, localKey: Keys.keyB, localSalt: Keys.salt(profile, 2),
                                             remoteKey: Keys.keyA, remoteSalt: Keys.salt(profile, 1))
        var sealed: [[UInt8]] = []
        sealed.reserveCapacity(count)
        let oursProtect = try Self.cpuSeconds { for packet in packets { sealed.append(try oursSender.protectRTP(packet)) } }
        let oursUnprotect = try Self.cpuSeconds { for packet in sealed { _ = try oursReceiver.unprotectRTP(packet) } }
        sealed.removeAll(keepingCapacity: true)
        let libProtect = try Self.cpuSeconds { for packet in packets { sealed.append(try libSender.protectRTP(packet)) } }
        let libUnprotect = try Self.cpuSeconds { for packet in sealed { _ = try libReceiver.unprotectRTP(packet) } }
        let perPacket = { (seconds: Double) in seconds / Double(count) * 1e6 }
        print(String(format: "MEASURE %@ 132-byte RTP, CPU us per packet: ours protect %.2f unprotect %.2f; libsrtp protect %.2f unprotect %.2f",
                     profile.name, perPacket(oursProtect), perPacket(oursUnprotect), perPacket(libProtect), perPacket(libUnprotect)))

        // In place, as a call does it: one reused buffer, no array per packet (fresh keys, so
        // the indices start over).
        let sender = try SRTPSender(profile: profile, key: Keys.keyB, salt: Keys.salt(profile, 3))
        let receiver = try SRTPReceiver(profile: profile, key: Keys.keyB, salt: Keys.salt(profile, 3))
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1_500 + SRTPSender.maximumGrowth)
        var protectTime = 0.0, unprotectTime = 0.0
        for packet in packets {
            buffer.removeAll(keepingCapacity: true)
            buffer.append(contentsOf: packet)
            protectTime += try Self.cpuSeconds { try sender.protectRTP(&buffer) }
            unprotectTime += try Self.cpuSeconds { try receiver.unprotectRTP(&buffer) }
        }
        print(String(format: "MEASURE %@ 132-byte RTP, CPU us per packet in place (one reused buffer): protect %.2f unprotect %.2f",
                     profile.name, perPacket(protectTime), perPacket(unprotectTime)))
    }
}
