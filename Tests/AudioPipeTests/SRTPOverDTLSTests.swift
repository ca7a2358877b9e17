import MediaTestSupport
@testable import AudioPipe
import Testing

/// Keys from a DTLS-SRTP handshake key SRTP sessions on both ends, and packets cross both ways.
@Suite struct SRTPOverDTLSTests {
    @Test(arguments: [SRTPProfile.aeadAes128Gcm, .aes128CmSha1_80])
    func dtlsKeysProtectTrafficBothWays(profile: SRTPProfile) async throws {
        let harness = try DTLSLoopbackHarness(clientProfiles: [profile])
        try await harness.run()
        let clientKeys = try #require(DTLSLoopbackHarness.keys(harness.clientEvents))
        let serverKeys = try #require(DTLSLoopbackHarness.keys(harness.serverEvents))
        #expect(clientKeys.profile == profile)
        let client = try SRTPSession(keyMaterial: clientKeys)
        let server = try SRTPSession(keyMaterial: serverKeys)

        for sequence in UInt16(1)...UInt16(50) {
            let up = SRTPSessionTests.rtp(sequence: sequence, ssrc: 0xC11E_4700)
            let down = SRTPSessionTests.rtp(sequence: sequence &* 3, ssrc: 0x5E4E_4000)
            #expect(try server.unprotectRTP(try client.protectRTP(up)) == up)
            #expect(try client.unprotectRTP(try server.protectRTP(down)) == down)
        }
        let report = SRTPSessionTests.rtcp()
        #expect(try server.unprotectRTCP(try client.protectRTCP(report)) == report)
        #expect(try client.unprotectRTCP(try server.protectRTCP(report)) == report)

        // A session keyed the wrong way round cannot read the peer's packets.
        let crossed = try SRTPSession(
            profile: profile, localKey: serverKeys.localKey, localSalt: serverKeys.localSalt,
            remoteKey: clientKeys.remoteKey, remoteSalt: clientKeys.remoteSalt)
        #expect(throws: SRTPError.authenticationFailed) {
            try crossed.unprotectRTP(try client.protectRTP(SRTPSessionTests.rtp(sequence: 999)))
        }
    }

    @Test func keyMaterialSplitsTheExporterOutputPerRFC5764() throws {
        let exported = (0..<60).map { UInt8($0) }  // CM: 16+16 keys, then 14+14 salts
        let client = try #require(SRTPKeyMaterial(exported: exported, profile: .aes128CmSha1_80, role: .client))
        let server = try #require(SRTPKeyMaterial(exported: exported, profile: .aes128CmSha1_80, role: .server))
        #expect(client.localKey == Array(0..<16) && client.remoteKey == Array(16..<32))
        #expect(client.localSalt == Array(32..<46) && client.remoteSalt == Array(46..<60))
        #expect(server.localKey == client.remoteKey && server.localSalt == client.remoteSalt)
        let gcm = try #require(SRTPKeyMaterial(exported: Array(exported.prefix(56)), profile: .aeadAes128Gcm, role: .client))
        #expect(gcm.localSalt == Array(32..<44) && gcm.remoteSalt == Array(44..<56))
        #expect(SRTPKeyMaterial(exported: exported, profile: .aeadAes128Gcm, role: .client) == nil)
        #expect(!client.description.contains("0, 1, 2"), "keys never appear in descriptions")
    }
}
