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
    }
}
