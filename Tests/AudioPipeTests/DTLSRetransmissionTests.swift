@testable import AudioPipe
import Testing

/// Lost flights are retransmitted when the owner drives `handleTimeout()` (RFC 6347 §4.2.4).
/// OpenSSL 3.0's DTLS timer reads the wall clock, so these tests wait for real, on 50 ms timers.
@Suite struct DTLSRetransmissionTests {
    typealias Harness = DTLSLoopbackHarness

    /// DTLS record content type and, for handshake records, the first message's type.
    static func firstMessage(_ datagram: [UInt8]) -> (contentType: UInt8, handshakeType: UInt8?) {
        guard datagram.count > 13 else { return (datagram.first ?? 0, nil) }
        return (datagram[0], datagram[0] == 22 ? datagram[13] : nil)
    }

    static func expectConnected(_ harness: Harness) throws {
        let clientKeys = try #require(Harness.keys(harness.clientEvents), "client: \(harness.clientEvents)")
        let serverKeys = try #require(Harness.keys(harness.serverEvents), "server: \(harness.serverEvents)")
        #expect(clientKeys.localKey == serverKeys.remoteKey && clientKeys.remoteKey == serverKeys.localKey)
    }

    @Test func lostClientHellosAreResent() async throws {
        let harness = try Harness(drop: { sender, _, index in sender == .client && index < 3 })
        try await harness.run()
        try Self.expectConnected(harness)
        #expect(harness.dropped == 3 && harness.timeouts >= 3)
    }

    @Test func partlyLostServerFlightIsResent() async throws {
        // MTU 300 splits the server's first flight; lose two of its datagrams once.
        let harness = try Harness(mtu: 300, drop: { sender, _, index in sender == .server && (index == 0 || index == 2) })
        try await harness.run()
        try Self.expectConnected(harness)
        #expect(harness.dropped == 2 && harness.timeouts >= 1)
    }

    /// A drop rule that loses the first datagram from `sender` that `matches`, once.
    static func dropFirst(from sender: DTLSRole, where matches: @escaping ([UInt8]) -> Bool) -> Harness.DropRule {
        var droppedOnce = false
        return { role, datagram, _ in
            guard role == sender, !droppedOnce, matches(datagram) else { return false }
            droppedOnce = true
            return true
        }
    }

    @Test func lostClientFinishedFlightIsResent() async throws {
        // The client's second flight starts with its Certificate (handshake type 11).
        let harness = try Harness(drop: Self.dropFirst(from: .client) { Self.firstMessage($0).handshakeType == 11 })
        try await harness.run()
        try Self.expectConnected(harness)
        #expect(harness.dropped == 1)
    }

    @Test func lostServerFinishedFlightIsResentOnClientRetransmission() async throws {
        // The server's last flight starts with ChangeCipherSpec (content type 20).
        let harness = try Harness(drop: Self.dropFirst(from: .server) { Self.firstMessage($0).contentType == 20 })
        try await harness.run()
        try Self.expectConnected(harness)
        #expect(harness.dropped == 1)
        // The server finished first and answered the client's repeated flight after the handshake.
        #expect(harness.sentByServer.filter { Self.firstMessage($0).contentType == 20 }.count == 2)
    }

    @Test func unansweredHandshakeFailsAfterOpenSSLsRetryLimit() async throws {
        let harness = try Harness(
            retransmission: DTLSRetransmissionPolicy(initialTimeout: 0.03, maximumTimeout: 0.03),
            drop: { sender, _, _ in sender == .client })
        harness.client.start()
        try await harness.pump(until: { !harness.clientEvents.isEmpty }, maxRounds: 40)
        guard case let .failed(error) = harness.clientEvents.first else {
            Issue.record("client did not fail: \(harness.clientEvents)")
            return
        }
        #expect(error == .protocolFailure(reason: "read timeout expired"))
        #expect(error.description == "Failed by DTLS error: read timeout expired")
        #expect(harness.client.nextTimeout == nil)
        #expect(harness.sentByClient.count > 10, "the ClientHello was retransmitted until OpenSSL gave up")
    }

    @Test func handleTimeoutBeforeExpiryDoesNothing() throws {
        let harness = try Harness(retransmission: .rfc6347, drop: { _, _, _ in true })
        harness.client.start()
        let timeout = try #require(harness.client.nextTimeout)
        #expect(timeout > 0.5 && timeout <= 1.0)
        harness.client.handleTimeout()
        #expect(harness.sentByClient.count == 1)
    }

    @Test func retransmissionPolicyDoublesUpToItsCeiling() {
        let policy = DTLSRetransmissionPolicy(initialTimeout: 0.05, maximumTimeout: 0.3)
        #expect(policy.nextTimeoutMicroseconds(after: 0) == 50_000)
        #expect(policy.nextTimeoutMicroseconds(after: 50_000) == 100_000)
        #expect(policy.nextTimeoutMicroseconds(after: 200_000) == 300_000)
        #expect(DTLSRetransmissionPolicy.rfc6347.nextTimeoutMicroseconds(after: 0) == 1_000_000)
        #expect(DTLSRetransmissionPolicy.rfc6347.nextTimeoutMicroseconds(after: 40_000_000) == 60_000_000)
        #expect(DTLSRetransmissionPolicy(initialTimeout: 0, maximumTimeout: 0).initialTimeout == DTLSRetransmissionPolicy.minimumTimeout)
    }
}
