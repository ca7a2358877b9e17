import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// A server list with the real binary and two named emulators, primary ("a") and backup ("b"): the
/// primary killed while idle, a call through the backup rings; random failovers between two nodes
/// that go down and come back (with or without their sessions) never show a token to the wrong node
/// (each emulator counts the foreign tokens it saw); no switch back to the primary during a call.
@Suite(.serialized) struct FailoverTests {
    static func backup(media: EmulatorProcess.Media = .fixed) throws -> EmulatorProcess {
        try EmulatorProcess(users: [AgentHarness.login: AgentHarness.password], media: media, arguments: ["--name", "b"])
    }

    static func config(_ h: AgentHarness, _ text: String) -> String {
        let path = h.scratch.file("failover-\(UUID().uuidString).conf")
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    /// Waits until the agent is online and registered on `url`; the error shows the agent's own log lines.
    static func waitOnline(_ h: AgentHarness, _ url: String, timeout: Double = 15) throws {
        do {
            try h.waitFor("online on \(url)", timeout: timeout) { try onlineOn(h, url) }
        } catch {
            let lines = h.log().split(separator: "\n").filter { !$0.contains(" control: ") }.suffix(40)
            throw HarnessError("not online on \(url): \((try? h.status()).map { "\($0)" } ?? "no status")\n" + lines.joined(separator: "\n"))
        }
    }

    static func onlineOn(_ h: AgentHarness, _ url: String) throws -> Bool {
        let status = try h.status()
        return status["state"] == "online" && status["registered"] == true && status["server"]?.stringValue == url
    }

    @Test func thePrimaryKilledWhileIdleACallThroughTheBackupRings() async throws {
        try await onThread {
            let h = try AgentHarness { _ in ["--name", "a"] }
            let backup = try Self.backup()
            try h.start(server: "\(h.emulator.url),\(backup.url)")
            #expect(try Self.onlineOn(h, h.emulator.url))
            h.emulator.kill()
            let killed = Date()
            try Self.waitOnline(h, backup.url, timeout: 20)
            print("failover: primary killed, online and registered on the backup after "
                  + "\(String(format: "%.2f", Date().timeIntervalSince(killed))) s")
            let ring = try backup.control.ring(login: AgentHarness.login, caller: "2000")
            try h.waitFor("the call rings on the agent") {
                try h.status()["calls"]?.arrayValue?.contains { $0["id"]?.stringValue == ring.callId || $0["call_id"]?.stringValue == ring.callId } == true
            }
            #expect(try backup.control.tokenCounts()["foreign"] == 0)
            #expect(try backup.control.frames(message: "connection", direction: "in").count == 1, "one login on the backup")
        }
    }

    /// A primary that drops the socket and then stalls (a node gone behind a load balancer: TCP
    /// connects, nothing answers): the one resume there is cut short (the kept address's grace, and a
    /// connect timeout bounded to 4 s when a backup exists), then the backup takes the session.
    @Test func aPrimaryThatDropsThenStallsMovesWithinTheBoundedResume() async throws {
        try await onThread {
            let h = try AgentHarness { _ in ["--name", "a"] }
            let backup = try Self.backup()
            try h.start(server: "\(h.emulator.url),\(backup.url)", extra: ["--config", Self.config(h, "[server]\nconnect_timeout = 10\n")])
            try h.emulator.control.setFaults(["handshake_stall": true])
            try h.emulator.control.cut(login: AgentHarness.login)
            let cut = Date()
            try Self.waitOnline(h, backup.url, timeout: 20)
            let took = Date().timeIntervalSince(cut)
            print("failover: primary dropped then stalled, online on the backup after \(String(format: "%.2f", took)) s "
                  + "(connect_timeout 10 s, the resume after a drop bounded to \(ServerFailover.resumeAfterDropConnectTimeout) s)")
            // The stalled resume was cut short (by the kept address's grace, or at most the bounded 4 s), never 10 s.
            #expect(h.log().contains("looks dead") && !h.log().contains("timed out after 10.0 s"))
            #expect(try backup.control.tokenCounts()["foreign"] == 0)
        }
    }

    @Test func randomFailoversNeverShowATokenToTheWrongServer() async throws {
        try await onThread {
            let h = try AgentHarness { _ in ["--name", "a"] }
            let backup = try Self.backup()
            let nodes = [h.emulator, backup]
            try h.start(server: "\(h.emulator.url),\(backup.url)",
                        extra: ["--config", Self.config(h, "[server]\nfailback_after = 0\nconnect_timeout = 2\n")])
            var generator = RTPSeededGenerator(seed: 1919)
            let failovers = 40
            let started = Date()
            var forgotten = 0
            for _ in 0..<failovers {
                let server = try #require(try h.status()["server"]?.stringValue)
                let active = try #require(nodes.first { $0.url == server })
                let other = try #require(nodes.first { $0.url != server })
                let forget = Bool.random(using: &generator)
                if forget { forgotten += 1 }
                try active.control.down(forget: forget)
                try Self.waitOnline(h, other.url)
                try active.control.up()
            }
            let a = try h.emulator.control.tokenCounts(), b = try backup.control.tokenCounts()
            print("failover: \(failovers) random failovers (\(forgotten) with the node's sessions lost) in "
                  + "\(String(format: "%.1f", Date().timeIntervalSince(started))) s; tokens presented a=\(a) b=\(b)")
            #expect(a["foreign"] == 0 && b["foreign"] == 0)
            #expect((a["known"] ?? 0) + (b["known"] ?? 0) > 0, "a kept session was resumed by its own token at least once")
        }
    }

    @Test func noSwitchBackDuringACallThenBackToThePrimary() async throws {
        try await onThread {
            let h = try AgentHarness { _ in ["--name", "a"] }
            let backup = try Self.backup(media: .webrtc)
            try h.start(server: "\(h.emulator.url),\(backup.url)",
                        extra: ["--config", Self.config(h, "[server]\nfailback_after = 1\n"), "--answer", "auto",
                                "--audio-source", "tone:880", "--audio-sink", "record:\(h.scratch.file("recordings"))",
                                "--media-address", "127.0.0.1"])
            try h.emulator.control.down()
            try Self.waitOnline(h, backup.url, timeout: 20)
            let ring = try backup.control.ring(login: AgentHarness.login, caller: "2000")
            try h.waitFor("answered", timeout: 20) { try backup.control.call(ring.callId)?.state == "established" }
            try h.emulator.control.up()
            Thread.sleep(forTimeInterval: 4)  // the primary answers 4 x failback_after during the call
            #expect(try Self.onlineOn(h, backup.url), "switched back during a call")
            #expect(try backup.control.call(ring.callId)?.state == "established")
            try backup.control.hangup(callId: ring.callId)
            let hungUp = Date()
            try h.waitFor("back on the primary", timeout: 20) { try Self.onlineOn(h, h.emulator.url) }
            print("failback: on the primary \(String(format: "%.2f", Date().timeIntervalSince(hungUp))) s after the call ended "
                  + "(failback_after 1 s)")
            #expect(try h.emulator.control.tokenCounts()["foreign"] == 0 && backup.control.tokenCounts()["foreign"] == 0)
        }
    }
}
