import Foundation
import MainLoop
import Testing
import TestSupport
import WCSSession

/// libwebsockets' own log lines and the transport's warnings go through `Log`.
/// Serialized and restores the default sink: `Log` is process-wide.
@Suite(.serialized) struct TransportLoggingTests {
    private final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [(LogLevel, String, String)] = []
        func add(_ line: (LogLevel, String, String)) {
            lock.lock(); defer { lock.unlock() }
            lines.append(line)
        }
        var all: [(level: LogLevel, subsystem: String, message: String)] {
            lock.lock(); defer { lock.unlock() }
            return lines.map { (level: $0.0, subsystem: $0.1, message: $0.2) }
        }
    }

    @Test func lwsLinesAndInsecureWarningsGoThroughLog() async throws {
        let lines = Lines()
        Log.configure(minimumLevel: .debug) { level, subsystem, message in lines.add((level, subsystem, message)) }
        defer { Log.configure(minimumLevel: .info, handler: nil) }
        let certificates = try TestCertificates.shared()
        let server = try await TransportTestServer.start(.echo, certificate: certificates.wrongNameCertificate, key: certificates.wrongNameKey)

        let (_, untrustedEvents) = startConnection(WebSocketOptions(url: server.url(secure: true)))
        #expect(await untrustedEvents.waitTerminal()?.failure?.kind == .tls)
        let lwsLines = lines.all.filter { $0.subsystem == "lws" }
        #expect(lwsLines.contains { $0.level == .warning && $0.message.contains("SSL error") })
        #expect(lwsLines.allSatisfy { !$0.message.hasSuffix("\n") && !$0.message.isEmpty })

        for _ in 0..<2 {
            let (insecure, events) = startConnection(WebSocketOptions(url: server.url(secure: true), allowInsecureTLS: true))
            #expect(await events.waitOpened())
            insecure.close()
            await events.waitTerminal()
        }
        let warnings = lines.all.filter {
            $0.subsystem == "transport" && $0.level == .warning && $0.message.contains("127.0.0.1:\(server.port)")
                && $0.message.contains("allowInsecureTLS")
        }
        #expect(warnings.count == 2) // once per connect
    }
}
