import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// A server that stops answering (no pings, no replies; the TCP socket stays open) is noticed after
/// the default `receive_probes` (3) probe intervals, and the agent resumes once the server is back.
/// The interval is 1 s here (the default 5 s gives 15 s); the real binary runs against the
/// emulator's silent mode.
@Suite(.serialized) struct DeadServerTests {
    @Test func defaultsNoticeADeadServerWithin15Seconds() {
        let config = AgentConfig(server: "ws://127.0.0.1:1")
        #expect(Double(config.receiveProbes) * config.probesInterval <= 15)
        let session = WCSSessionConfiguration(url: "ws://127.0.0.1:1")
        #expect(Double(session.receiveProbes) * session.probesInterval <= 15)
    }

    @Test func aSilentServerIsNoticedAfterThreeProbesAndTheSessionResumed() async throws {
        let figures = try await onThread { () throws -> (noticed: Double?, backOnline: Bool, sameSession: Bool) in
            let h = try AgentHarness { _ in ["--ping-interval", "0.3"] }
            let config = h.scratch.file("agent.conf")
            _ = FileManager.default.createFile(atPath: config, contents: Data("[server]\nconnect_timeout = 2\n[agent]\nprobes_interval = 1\n".utf8))
            try h.start(extra: ["--config", config])
            let id = try h.emulator.control.sessions().first?.id
            try h.emulator.control.stopAnswering(true)
            let silentSince = Date()
            var noticed: Double?
            while Date().timeIntervalSince(silentSince) < 10 {
                if let state = try? h.status()["state"]?.stringValue, state != "online" {
                    noticed = Date().timeIntervalSince(silentSince)
                    break
                }
                usleep(100_000)
            }
            try h.emulator.control.stopAnswering(false)
            let back = (try? h.waitFor("online again", timeout: 30) { try h.status()["state"] == "online" }) != nil
            let same = try h.emulator.control.sessions().contains { $0.id == id && $0.connected }
            return (noticed, back, same)
        }
        let noticed = try #require(figures.noticed, "still online 10 s after the server went silent")
        print("dead server: noticed \(String(format: "%.1f", noticed)) s after it went silent (3 probes of 1 s)")
        #expect(noticed >= 1.5 && noticed <= 5, "noticed after \(noticed) s (3 probes of 1 s)")
        #expect(figures.backOnline && figures.sameSession)
    }
}
