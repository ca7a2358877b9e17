import Foundation
@testable import MainLoop
import Testing
import TestSupport
@testable import WCSSession

/// wss:// verification against the Python fixture with generated certificates.
@Suite struct TransportTLSTests {
    let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.shared()
    }

    private func echoServer(wrongName: Bool = false, host: String = "127.0.0.1") async throws -> TransportTestServer {
        try await TransportTestServer.start(.echo, host: host,
                                certificate: wrongName ? certificates.wrongNameCertificate : certificates.serverCertificate,
                                key: wrongName ? certificates.wrongNameKey : certificates.serverKey)
    }

    /// Connects, sends one message and returns the recorder once the echo or a terminal event arrived.
    private func roundTrip(_ options: WebSocketOptions) async -> EventRecorder {
        let (connection, recorder) = startConnection(options)
        connection.send("secret hello")
        await recorder.wait { $0.contains(.text("secret hello")) || $0.contains(where: \.isTerminal) }
        connection.close()
        await recorder.waitTerminal()
        return recorder
    }

    @Test(arguments: ["127.0.0.1", "localhost"])
    func verifiesAgainstTheCAFile(host: String) async throws {
        let server = try await echoServer()
        let recorder = await roundTrip(WebSocketOptions(url: server.url(secure: true, host: host), caFile: certificates.caFile))
        #expect(recorder.events == [.opened, .text("secret hello"), .closed(code: 1000, reason: "")])
    }

    @Test func verifiesAnIPv6LiteralAgainstTheCertificateIPs() async throws {
        let server = try await echoServer(host: "::1")
        let recorder = await roundTrip(WebSocketOptions(url: server.url(secure: true), caFile: certificates.caFile))
        #expect(recorder.events == [.opened, .text("secret hello"), .closed(code: 1000, reason: "")])
    }

    @Test func failsWithoutTheCAFile() async throws {
        let server = try await echoServer()
        let recorder = await roundTrip(WebSocketOptions(url: server.url(secure: true)))
        let failure = recorder.terminal?.failure
        #expect(failure?.kind == .tls)
        #expect(failure?.message.contains("TLS certificate verify failed: unable to get local issuer certificate") == true,
                "\(String(describing: failure))")
        #expect(recorder.events.count == 1)
    }

    @Test func insecureAcceptsAnUntrustedWrongNameCertificate() async throws {
        let server = try await echoServer(wrongName: true)
        let recorder = await roundTrip(WebSocketOptions(url: server.url(secure: true, host: "localhost"), allowInsecureTLS: true))
        #expect(recorder.events == [.opened, .text("secret hello"), .closed(code: 1000, reason: "")])
    }

    @Test func hostNameMismatchFails() async throws {
        let server = try await echoServer(wrongName: true)
        let recorder = await roundTrip(WebSocketOptions(url: server.url(secure: true, host: "localhost"), caFile: certificates.caFile))
        let failure = recorder.terminal?.failure
        #expect(failure?.kind == .tls)
        #expect(failure?.message.contains("hostname mismatch") == true, "\(String(describing: failure))")
    }

    @Test(arguments: ["127.0.0.1", "::1"])
    func ipAddressMismatchFails(host: String) async throws {
        let server = try await echoServer(wrongName: true, host: host)
        let recorder = await roundTrip(WebSocketOptions(url: server.url(secure: true), caFile: certificates.caFile))
        let failure = recorder.terminal?.failure
        #expect(failure?.kind == .tls)
        #expect(failure?.message.lowercased().contains("ip address mismatch") == true, "\(String(describing: failure))")
    }

    @Test func missingOrEmptyCAFileFailsClearly() async throws {
        let server = try await echoServer()
        let missing = await roundTrip(WebSocketOptions(url: server.url(secure: true), caFile: "/nonexistent/ca.pem"))
        #expect(missing.terminal?.failure?.kind == .tls)
        #expect(missing.terminal?.failure?.message.contains("/nonexistent/ca.pem") == true)

        let empty = certificates.directory + "/empty.pem"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let unusable = await roundTrip(WebSocketOptions(url: server.url(secure: true), caFile: empty))
        #expect(unusable.terminal?.failure?.kind == .tls)
        #expect(unusable.terminal?.failure?.message.contains("no usable PEM certificate") == true)
    }

    /// lws 4.1.6 re-allocates a process-wide OpenSSL index whenever a context is created with
    /// DO_SSL_GLOBAL_INIT; this used to break handshakes in flight on other loops.
    @Test func handshakesSurviveTLSSetupOnOtherLoops() async throws {
        let server = try await echoServer()
        let certificates = certificates
        let failures = Locked([String]())
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for round in 0..<10 {
                    let loop = MainLoop(name: "tls-churn-\(round)")
                    let trust = TLSTrust(caFile: certificates.caFile, insecure: round.isMultiple(of: 2))
                    let sslContext = ClientTLSContexts.build(trust)
                    _ = try? loop.sync {
                        let ssl = try sslContext.get()
                        try LWSClientContext.obtain(loop: loop).assumeIsolated { _ = try LWSPointer($0.vhost(for: trust, sslContext: ssl)) }
                    }
                    loop.stop()
                }
            }
            for worker in 0..<3 {
                group.addTask {
                    for index in 0..<15 {
                        let options = (worker + index).isMultiple(of: 2)
                            ? WebSocketOptions(url: server.url(secure: true), caFile: certificates.caFile)
                            : WebSocketOptions(url: server.url(secure: true), allowInsecureTLS: true)
                        let (connection, recorder) = startConnection(options)
                        if await !recorder.waitOpened() {
                            failures.set(failures.value + ["\(options.url): \(recorder.events)"])
                        }
                        connection.close()
                        await recorder.waitTerminal()
                    }
                }
            }
        }
        #expect(failures.value.isEmpty, "\(failures.value)")
    }

    @Test func tlsToAPlainServerFails() async throws {
        let server = try await TransportTestServer.start(.echo)
        let recorder = await roundTrip(WebSocketOptions(url: server.url(secure: true), caFile: certificates.caFile))
        #expect(recorder.terminal?.failure?.kind == .tls)
    }
}
