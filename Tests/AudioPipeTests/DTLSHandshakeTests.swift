@testable import AudioPipe
import Testing

/// Back-to-back DTLS-SRTP handshakes in one process.
@Suite struct DTLSHandshakeTests {
    typealias Harness = DTLSLoopbackHarness

    static func expectMirroredKeys(_ harness: Harness, profile: SRTPProfile) throws {
        let clientKeys = try #require(Harness.keys(harness.clientEvents))
        let serverKeys = try #require(Harness.keys(harness.serverEvents))
        #expect(clientKeys.profile == profile && serverKeys.profile == profile)
        #expect(clientKeys.localKey == serverKeys.remoteKey && clientKeys.localSalt == serverKeys.remoteSalt)
        #expect(clientKeys.remoteKey == serverKeys.localKey && clientKeys.remoteSalt == serverKeys.localSalt)
        #expect(clientKeys.localKey != clientKeys.remoteKey)
        #expect(clientKeys.localKey.count == 16 && clientKeys.localSalt.count == profile.saltLength)
        #expect(clientKeys.localKey != [UInt8](repeating: 0, count: 16))
        #expect(harness.client.state == .connected(clientKeys) && harness.server.state == .connected(serverKeys))
    }

    @Test func connectsWithGCMByDefault() async throws {
        let harness = try Harness()
        try await harness.run()
        try Self.expectMirroredKeys(harness, profile: .aeadAes128Gcm)
        #expect(Harness.keys(harness.clientEvents)?.profileName == "SRTP_AEAD_AES_128_GCM")
        #expect(Harness.keys(harness.clientEvents)?.profileID == 7)
        #expect(harness.client.cipherSuite?.hasPrefix("ECDHE-ECDSA-") == true)
        #expect(harness.timeouts == 0, "no retransmission needed without loss")
        #expect(harness.client.nextTimeout == nil && harness.server.nextTimeout == nil)
        #expect(harness.clientEvents.count == 1 && harness.serverEvents.count == 1)
    }

    @Test(arguments: [
        ([SRTPProfile.aes128CmSha1_80], SRTPProfile.preferredOrder),
        (SRTPProfile.preferredOrder, [SRTPProfile.aes128CmSha1_80]),
        ([SRTPProfile.aes128CmSha1_80, .aeadAes128Gcm], [SRTPProfile.aes128CmSha1_80, .aeadAes128Gcm]),
    ])
    func connectsWithCMWhenThatIsTheCommonChoice(clientProfiles: [SRTPProfile], serverProfiles: [SRTPProfile]) async throws {
        let harness = try Harness(clientProfiles: clientProfiles, serverProfiles: serverProfiles)
        try await harness.run()
        try Self.expectMirroredKeys(harness, profile: .aes128CmSha1_80)
        #expect(Harness.keys(harness.serverEvents)?.profileID == 1)
    }

    @Test func noCommonSRTPProfileFailsBothSides() async throws {
        let harness = try Harness(clientProfiles: [.aeadAes128Gcm], serverProfiles: [.aes128CmSha1_80])
        try await harness.run()
        #expect(harness.clientEvents.count == 1 && harness.serverEvents.count == 1)
        guard case let .failed(error) = harness.clientEvents.first else {
            Issue.record("client did not fail: \(harness.clientEvents)")
            return
        }
        #expect(error == .protocolFailure(reason: "no SRTP profile negotiated"))
        #expect(error.description == "Failed by DTLS error: no SRTP profile negotiated")
        #expect(harness.serverEvents.first.map { if case .failed = $0 { true } else { false } } == true)
    }

    @Test func datagramsStayWithinTheMTUAndFlightsSpanSeveral() async throws {
        let harness = try Harness(mtu: 300)
        try await harness.run()
        try Self.expectMirroredKeys(harness, profile: .aeadAes128Gcm)
        let sizes = (harness.sentByClient + harness.sentByServer).map(\.count)
        #expect(sizes.allSatisfy { $0 <= 300 }, "sizes \(sizes)")
        #expect(harness.sentByServer.count >= 3, "the server flight is fragmented: \(harness.sentByServer.map(\.count))")
    }

    @Test func largeMTUPacksAFlightIntoOneDatagram() async throws {
        // Timers longer than the handshake: on a loaded machine the fast 50 ms timers would resend
        // a flight before its answer arrives, and this counts first transmissions.
        let harness = try Harness(retransmission: DTLSRetransmissionPolicy(initialTimeout: 30, maximumTimeout: 30))
        try await harness.run()
        // ServerHello..ServerHelloDone, then ChangeCipherSpec+Finished: one datagram per flight.
        #expect(harness.sentByServer.count == 2, "\(harness.sentByServer.map(\.count))")
        #expect(harness.sentByClient.count == 2, "\(harness.sentByClient.map(\.count))")
    }

    @Test func closeNotifyReachesThePeer() async throws {
        let harness = try Harness()
        try await harness.run()
        harness.client.close()
        harness.deliverQueued()
        #expect(harness.client.state == .closed && harness.server.state == .closed)
        #expect(harness.clientEvents.last == .closed && harness.serverEvents.last == .closed)
        harness.client.close()  // idempotent
        #expect(harness.clientEvents.count == 2)
    }

    @Test func nothingIsSentBeforeStartAndEarlyDatagramsAreKept() async throws {
        let harness = try Harness()
        #expect(harness.client.state == .idle && harness.client.nextTimeout == nil)
        harness.client.start()
        #expect(harness.client.nextTimeout != nil, "the ClientHello timer runs")
        #expect(harness.sentByServer.isEmpty && harness.sentByClient.count == 1)
        harness.deliverQueued()  // the server, not started yet, keeps the ClientHello
        #expect(harness.sentByServer.isEmpty)
        harness.server.start()
        try await harness.pump(until: { !harness.clientEvents.isEmpty && !harness.serverEvents.isEmpty })
        try Self.expectMirroredKeys(harness, profile: .aeadAes128Gcm)
    }

    @Test func setupRejectsBadParameters() throws {
        let certificate = try DTLSCertificate.shared
        let fingerprint = try DTLSFingerprint(sdpValue: certificate.fingerprint)
        #expect(throws: DTLSError.setupFailed("MTU 100 outside 256...65507")) {
            try DTLSTransport(role: .client, certificate: certificate, remoteFingerprint: fingerprint, mtu: 100, send: { _ in })
        }
        #expect(throws: DTLSError.setupFailed("no SRTP profile to offer")) {
            try DTLSTransport(role: .client, certificate: certificate, remoteFingerprint: fingerprint, profiles: [], send: { _ in })
        }
    }
}
