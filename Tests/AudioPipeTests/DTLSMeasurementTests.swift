@testable import AudioPipe
import Foundation
import Testing

/// Timings for the report, only when `AUDIOPIPE_MEASURE=1` (no timed assertions; prints numbers).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["AUDIOPIPE_MEASURE"] == "1"))
struct DTLSMeasurementTests {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    @Test func measureHandshakeAndSRTP() async throws {
        let generation = try Self.seconds { _ = try DTLSCertificate() }
        var handshakes: [Double] = []
        for _ in 0..<20 {
            let harness = try DTLSLoopbackHarness()
            let start = DispatchTime.now().uptimeNanoseconds
            try await harness.run()
            handshakes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            #expect(DTLSLoopbackHarness.keys(harness.clientEvents) != nil)
        }
        print(String(format: "MEASURE certificate generation %.2f ms; handshake median %.2f ms (min %.2f)",
                     generation * 1000, handshakes.sorted()[10] * 1000, handshakes.min()! * 1000))
        for profile in SRTPProfile.allCases {
            let (alice, bob) = try SRTPSessionTests.pair(profile)
            let count = 20_000
            let packets = (0..<count).map { SRTPSessionTests.rtp(sequence: UInt16(truncatingIfNeeded: $0), payloadLength: 160) }
            var protected: [[UInt8]] = []
            protected.reserveCapacity(count)
            let protectTime = try Self.seconds { for packet in packets { protected.append(try alice.protectRTP(packet)) } }
            let unprotectTime = try Self.seconds { for packet in protected { _ = try bob.unprotectRTP(packet) } }
            print(String(format: "MEASURE %@ 172-byte RTP: protect %.2f us, unprotect %.2f us per packet",
                         profile.name, protectTime / Double(count) * 1e6, unprotectTime / Double(count) * 1e6))
        }
    }
}
