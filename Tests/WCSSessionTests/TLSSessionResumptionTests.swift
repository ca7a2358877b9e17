import Foundation
import Testing
import TestSupport
@testable import WCSSession

/// wss:// resumes the TLS session of the connection before (`TLSSessionCache`), and verification
/// stays on: a server that comes back on the same address with another certificate gets a full
/// handshake and fails as it always did. Against the WCS emulator with generated certificates.
@Suite(.serialized) struct TLSSessionResumptionTests {
    let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.shared()
    }

    private func emulator(certificate: String, key: String, port: Int? = nil) throws -> EmulatorProcess {
        try EmulatorProcess(arguments: ["--tls-cert", certificate, "--tls-key", key] + (port.map { ["--port", String($0)] } ?? []))
    }

    /// Opens a connection to `url` and closes it; returns how it went and whether TLS resumed.
    private func open(_ url: String) async -> (events: [WebSocketEvent], resumed: Bool?) {
        let (connection, recorder) = startConnection(WebSocketOptions(url: url, caFile: certificates.caFile, connectTimeout: 5))
        await recorder.wait { $0.contains(.opened) || $0.contains(where: \.isTerminal) }
        let resumed = connection.tlsSessionResumed
        connection.close()
        await recorder.waitTerminal()
        return (recorder.events, resumed)
    }

    @Test func theSecondConnectionResumesAndAChangedCertificateStillFails() async throws {
        let first = try emulator(certificate: certificates.serverCertificate, key: certificates.serverKey)
        let url = first.url
        let full = await open(url)
        #expect(full.events.first == .opened)
        #expect(full.resumed == false, "the first handshake is a full one")
        let again = await open(url)
        #expect(again.events.first == .opened)
        #expect(again.resumed == true, "the second one resumes the kept session")

        // The same address now serves a certificate for another name (same CA): the kept session
        // does not let it through.
        first.kill()
        let changed = try emulator(certificate: certificates.wrongNameCertificate, key: certificates.wrongNameKey,
                                   port: first.port)
        let refused = await open(url)
        #expect(refused.events.count == 1)
        #expect(refused.events.first?.failure?.kind == .tls, "\(refused.events)")

        // The right certificate again: a full handshake (the new server knows no session), then resumes.
        changed.kill()
        let back = try emulator(certificate: certificates.serverCertificate, key: certificates.serverKey, port: first.port)
        let fresh = await open(url)
        #expect(fresh.events.first == .opened && fresh.resumed == false)
        #expect(await open(url).resumed == true)
        back.kill()
    }
}
