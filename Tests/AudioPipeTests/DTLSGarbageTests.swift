@testable import AudioPipe
import Testing

/// Datagrams that are not DTLS, or are malformed DTLS, never crash a transport.
@Suite struct DTLSGarbageTests {
    typealias Harness = DTLSLoopbackHarness

    /// A small deterministic generator (SplitMix64), so failures reproduce.
    struct SeededRandom: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func randomDatagrams(count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SeededRandom(state: seed)
        return (0..<count).map { _ in
            (0..<Int.random(in: 0...1500, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
    }

    /// Records with a plausible DTLS 1.2 header (content types 20-23, epochs 0-1) and a random body.
    static func dtlsShapedDatagrams(count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SeededRandom(state: seed)
        return (0..<count).map { _ in
            let body = (0..<Int.random(in: 1...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let header: [UInt8] = [UInt8.random(in: 20...23, using: &random), 0xFE, 0xFD,
                                   0, UInt8.random(in: 0...1, using: &random), 0, 0, 0, 0, 0, UInt8.random(in: 0...40, using: &random),
                                   UInt8(body.count >> 8), UInt8(body.count & 0xFF)]
            return header + body
        }
    }

    @Test func randomBytesBeforeDuringAndAfterTheHandshakeAreIgnored() async throws {
        let harness = try Harness()
        for datagram in Self.randomDatagrams(count: 40, seed: 1) {
            harness.client.receive(datagram)
            harness.server.receive(datagram)
        }
        harness.server.start()
        harness.client.start()
        for datagram in Self.randomDatagrams(count: 40, seed: 2) {
            harness.inject(datagram, from: .client)
            harness.inject(datagram, from: .server)
        }
        try await harness.pump(until: { !harness.clientEvents.isEmpty && !harness.serverEvents.isEmpty })
        let keys = try #require(Harness.keys(harness.clientEvents))
        #expect(Harness.keys(harness.serverEvents)?.remoteKey == keys.localKey)
        for datagram in Self.randomDatagrams(count: 200, seed: 3) {
            harness.client.receive(datagram)
            harness.server.receive(datagram)
        }
        #expect(harness.client.state == .connected(keys))
        #expect(harness.clientEvents.count == 1 && harness.serverEvents.count == 1)
    }

    @Test func dtlsShapedGarbageEndsInADefinedStateWithoutCrashing() async throws {
        for seed in UInt64(10)..<UInt64(16) {
            let harness = try Harness()
            harness.server.start()
            harness.client.start()
            for datagram in Self.dtlsShapedDatagrams(count: 30, seed: seed) {
                harness.inject(datagram, from: .client)
                harness.inject(datagram, from: .server)
            }
            try await harness.pump(until: { !harness.clientEvents.isEmpty && !harness.serverEvents.isEmpty }, maxRounds: 20)
            // OpenSSL treats malformed epoch-0 records during the handshake as fatal (e.g. "bad change
            // cipher spec", "unexpected record"); either way each side reports at most one outcome.
            for events in [harness.clientEvents, harness.serverEvents] {
                #expect(events.count <= 1)
            }
            for datagram in Self.dtlsShapedDatagrams(count: 100, seed: seed + 100) {
                harness.client.receive(datagram)
                harness.server.receive(datagram)
            }
        }
    }

    @Test func datagramsAfterFailureAreIgnored() async throws {
        let wrong = try #require(try DTLSCertificate().fingerprint(.sha256))
        let harness = try Harness(clientExpects: wrong)
        try await harness.run()
        #expect(harness.client.state == .failed(.fingerprintMismatch))
        let sentBefore = harness.sentByClient.count
        for datagram in harness.sentByServer { harness.client.receive(datagram) }
        harness.client.handleTimeout()
        harness.client.start()
        #expect(harness.sentByClient.count == sentBefore && harness.clientEvents.count == 1)
    }
}
