@testable import AudioPipe
import Testing
import CSSL

/// Certificates, fingerprint formats, and fingerprint checks during the handshake.
@Suite struct DTLSFingerprintTests {
    typealias Harness = DTLSLoopbackHarness

    @Test func sharedCertificateHasASHA256FingerprintInSDPForm() throws {
        let certificate = try DTLSCertificate.shared
        #expect(try DTLSCertificate.shared === certificate, "made once per process")
        #expect(certificate.commonName == "wcs-agent")
        let value = certificate.fingerprint
        #expect(value.hasPrefix("sha-256 "))
        let hex = value.dropFirst("sha-256 ".count)
        let pairs = hex.split(separator: ":")
        #expect(pairs.count == 32)
        #expect(pairs.allSatisfy { $0.count == 2 && $0.allSatisfy { "0123456789ABCDEF".contains($0) } })
        #expect(try DTLSFingerprint(sdpValue: value).sdpValue == value)
    }

    @Test func freshCertificatesDiffer() throws {
        let first = try DTLSCertificate()
        let second = try DTLSCertificate(commonName: "other", validityDays: 1)
        #expect(first.fingerprint != second.fingerprint)
        #expect(first.fingerprint(.sha1)?.digest.count == 20)
        #expect(first.fingerprint(.sha512)?.sdpValue.hasPrefix("sha-512 ") == true)
        #expect(throws: DTLSError.self) { try DTLSCertificate(commonName: "") }
    }

    @Test func certificateIsAV3SelfSignedP256CertificateValidFromYesterdayFor30Days() throws {
        let certificate = try DTLSCertificate.shared
        let x509 = certificate.certificate
        #expect(X509_get_version(x509) == 2)
        #expect(X509_NAME_cmp(X509_get_subject_name(x509), X509_get_issuer_name(x509)) == 0)
        let key = try #require(X509_get0_pubkey(x509))
        #expect(X509_verify(x509, key) == 1, "signed by its own key")
        #expect(EVP_PKEY_get_bits(key) == 256)
        #expect(EVP_PKEY_is_a(key, "EC") == 1)
        var days: Int32 = 0
        var seconds: Int32 = 0
        #expect(ASN1_TIME_diff(&days, &seconds, X509_getm_notBefore(x509), X509_getm_notAfter(x509)) == 1)
        #expect(days == 30 && seconds == 0)
        #expect(X509_cmp_current_time(X509_getm_notBefore(x509)) < 0)
        #expect(ASN1_TIME_diff(&days, &seconds, nil, X509_getm_notBefore(x509)) == 1)
        #expect(days == -1 || (days == 0 && seconds < -86_000))
    }

    @Test(arguments: [
        "sha-256 ab:cd",  // too short
        "sha-256",
        "md5 AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89",
        "sha-1 AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:0G",
        "sha-1 ABC:D:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01",
        "sha-1 AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:",
        "",
    ])
    func malformedFingerprintsAreRefused(value: String) {
        #expect(throws: DTLSError.invalidFingerprint(value)) { try DTLSFingerprint(sdpValue: value) }
    }

    @Test func fingerprintParsingAcceptsCaseVariants() throws {
        let parsed = try DTLSFingerprint(sdpValue: "SHA-1 ab:CD:ef:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01")
        #expect(parsed.algorithm == .sha1)
        #expect(parsed.sdpValue == "sha-1 AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01")
    }

    @Test(arguments: [DTLSFingerprint.Algorithm.sha1, .sha384, .sha512])
    func otherHashAlgorithmsVerify(algorithm: DTLSFingerprint.Algorithm) async throws {
        let serverFingerprint = try #require(Harness.serverCertificate.fingerprint(algorithm))
        let clientFingerprint = try #require(Harness.clientCertificate.fingerprint(algorithm))
        let harness = try Harness(clientExpects: serverFingerprint, serverExpects: clientFingerprint)
        try await harness.run()
        #expect(Harness.keys(harness.clientEvents) != nil && Harness.keys(harness.serverEvents) != nil)
    }

    /// The side given a wrong expected fingerprint fails with `.fingerprintMismatch` during the
    /// handshake; its alert makes the other side fail with an OpenSSL error in the same round.
    @Test(arguments: [DTLSRole.client, .server])
    func wrongFingerprintFailsBothSides(detector: DTLSRole) async throws {
        let wrong = try #require(try DTLSCertificate().fingerprint(.sha256))
        let harness = detector == .client ? try Harness(clientExpects: wrong) : try Harness(serverExpects: wrong)
        let rounds = try await harness.run(maxRounds: 10)
        #expect(rounds <= 2)
        let (detectorEvents, otherEvents) = detector == .client
            ? (harness.clientEvents, harness.serverEvents) : (harness.serverEvents, harness.clientEvents)
        #expect(detectorEvents == [.failed(.fingerprintMismatch)])
        #expect(DTLSError.fingerprintMismatch.description == "Failed by DTLS fingerprint error")
        guard otherEvents.count == 1, case let .failed(otherError) = otherEvents[0] else {
            Issue.record("the other side did not fail: \(otherEvents)")
            return
        }
        #expect(otherError != .fingerprintMismatch)
        #expect(otherError.description.hasPrefix("Failed by DTLS error: "), "\(otherError)")
        #expect(harness.client.nextTimeout == nil && harness.server.nextTimeout == nil)
    }

    @Test func rolesFollowSDPSetup() {
        #expect(DTLSRole(localSetup: "active") == .client)
        #expect(DTLSRole(localSetup: "passive") == .server)
        #expect(DTLSRole(localSetup: "actpass") == nil)
        #expect(DTLSRole(answeringRemoteSetup: "actpass") == .client)
        #expect(DTLSRole(answeringRemoteSetup: "active") == .server)
        #expect(DTLSRole.client.localSetup == "active")
    }
}
