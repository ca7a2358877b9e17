import Foundation
import MainLoop
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

    /// Time from connect() to `.opened` as seen by an event consumer.
    private static func connectTime(_ options: WebSocketOptions, loop: MainLoop) async -> Double? {
        let connection = WebSocketConnection(options: options, loop: loop)
        let start = DispatchTime.now()
        connection.connect()
        var openedAfter: Double?
        for await event in connection.events {
            if event == .opened {
                openedAfter = milliseconds(since: start)
                connection.close()
            } else if event.isTerminal && openedAfter == nil {
                Issue.record("connect to \(options.url) failed: \(event)")
            }
        }
        return openedAfter
    }

    @Test func contextCreationAndConnectTimes() async throws {
        let certificates = try TestCertificates.shared()
        let kinds: [(String, TLSTrust?)] = [
            ("ws only (no TLS)", nil),
            ("wss, system CAs", TLSTrust(caFile: nil, insecure: false)),
            ("wss, caFile", TLSTrust(caFile: certificates.caFile, insecure: false)),
        ]
        var contextTimes = Array(repeating: [Double](), count: kinds.count)
        for round in 0..<3 {
            for (index, kind) in kinds.enumerated() {
                let loop = MainLoop(name: "bench-\(round)-\(index)")
                contextTimes[index].append(try loop.sync {
                    let start = DispatchTime.now()
                    _ = try LWSClientContext.obtain(loop: loop).vhost(for: kind.1)
                    return Self.milliseconds(since: start)
                })
                loop.stop()
            }
        }
        for (index, kind) in kinds.enumerated() {
            print("[transport benchmark] lws context + client vhost creation, \(kind.0): \(Self.summary(contextTimes[index]))")
        }

        let plain = try TransportTestServer(.echo)
        let secure = try TransportTestServer(.echo, certificate: certificates.serverCertificate, key: certificates.serverKey)
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
