import Foundation
@testable import MainLoop
import Testing
import TestSupport
@testable import WCSSession

/// Timings for the report: printed, never asserted (the machine is shared and loaded).
@Suite(.serialized) struct TransportBenchmarkTests {
    private static func milliseconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
    }

    private static func summary(_ samples: [Double]) -> String {
        let sorted = samples.sorted()
        return String(format: "median %.1f ms, min %.1f ms, max %.1f ms (n=%d)",
                      sorted[sorted.count / 2], sorted.first!, sorted.last!, sorted.count)
    }

    /// Time from connect() to the upgrade completing, measured on the loop side (an event
    /// consumer would add the latency of the busy cooperative thread pool of a parallel run).
    private static func connectTime(_ options: WebSocketOptions, loop: MainLoop) async -> Double? {
        let (connection, recorder) = startConnection(options, loop: loop)
        guard await recorder.waitOpened() else {
            Issue.record("connect to \(options.url) failed: \(recorder.events)")
            return nil
        }
        let latency = connection.core.connectToOpenMilliseconds
        connection.close()
        await recorder.waitTerminal()
        return latency
    }

    @Test func contextCreationAndConnectTimes() async throws {
        let certificates = try TestCertificates.shared()
        // Per loop: the lws context (what the loop thread pays once).
        var contextTimes: [Double] = []
        for round in 0..<3 {
            let loop = MainLoop(name: "bench-context-\(round)")
            contextTimes.append(try loop.sync {
                let start = DispatchTime.now()
                _ = try LWSClientContext.obtain(loop: loop)
                return Self.milliseconds(since: start)
            })
            loop.stop()
        }
        print("[transport benchmark] lws context creation (loop thread): \(Self.summary(contextTimes))")

        // Per process and trust: the client SSL_CTX (built off the loop thread).
        for (label, trust) in [("system CAs", TLSTrust(caFile: nil, insecure: false)),
                               ("caFile", TLSTrust(caFile: certificates.caFile, insecure: false))] {
            var buildTimes: [Double] = []
            for _ in 0..<3 {
                let start = DispatchTime.now()
                _ = try ClientTLSContexts.build(trust).get()
                buildTimes.append(Self.milliseconds(since: start))
            }
            print("[transport benchmark] client SSL_CTX build, \(label) (background thread): \(Self.summary(buildTimes))")
        }

        // Per loop and trust: the TLS vhost around a built SSL_CTX (loop thread).
        var vhostTimes: [Double] = []
        let trust = TLSTrust(caFile: nil, insecure: false)
        let sslContext = try ClientTLSContexts.build(trust).get()
        for round in 0..<3 {
            let loop = MainLoop(name: "bench-vhost-\(round)")
            let context = try loop.sync { try LWSClientContext.obtain(loop: loop) }
            vhostTimes.append(try loop.sync {
                let start = DispatchTime.now()
                try context.assumeIsolated { _ = try LWSPointer($0.vhost(for: trust, sslContext: sslContext)) }
                return Self.milliseconds(since: start)
            })
            loop.stop()
        }
        print("[transport benchmark] TLS client vhost creation (loop thread): \(Self.summary(vhostTimes))")

        let plain = try await TransportTestServer.start(.echo)
        let secure = try await TransportTestServer.start(.echo, certificate: certificates.serverCertificate, key: certificates.serverKey)
        let loop = MainLoop(name: "bench-connect")
        defer { loop.stop() }
        let wsOptions = WebSocketOptions(url: plain.url())
        let wssOptions = WebSocketOptions(url: secure.url(secure: true), caFile: certificates.caFile)
        WebSocketConnection.prewarm(options: wsOptions, loop: loop)
        WebSocketConnection.prewarm(options: wssOptions, loop: loop)
        var ws: [Double] = [], wss: [Double] = []
        for _ in 0..<15 {
            if let time = await Self.connectTime(wsOptions, loop: loop) { ws.append(time) }
            if let time = await Self.connectTime(wssOptions, loop: loop) { wss.append(time) }
        }
        #expect(ws.count == 15 && wss.count == 15)
        print("""
        [transport benchmark] connect+upgrade ws:// (context prewarmed): \(Self.summary(ws))
        [transport benchmark] connect+upgrade wss:// (context prewarmed): \(Self.summary(wss))
        """)
    }
}
