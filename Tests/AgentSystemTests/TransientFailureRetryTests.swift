import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// Invariant (a) of issue 19 at every layer, with the real binary and the emulator's fault switches:
/// a failure that may be transient (a registrar that fails or stays silent once, an upgrade refused
/// with 503 + Retry-After, a close 1013 before the session, a stalled TLS handshake, a registration
/// lost while online) is retried until the agent is online and registered; the server's "when" is
/// honoured; only a definite refusal of our credentials stops, and says so.
@Suite(.serialized) struct TransientFailureRetryTests {
    /// A config file with short knobs; returns its path.
    static func config(_ h: AgentHarness, _ text: String) -> String {
        let path = h.scratch.file("agent-\(UUID().uuidString).conf")
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    static func registeredOnline(_ h: AgentHarness) throws -> Bool {
        let status = try h.status()
        return status["state"] == "online" && status["registered"] == true
    }

    @Test func aRegistrarThatFailsOnceIsRetriedUntilRegistered() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.emulator.control.setFaults(["registrar_fail_next": 1])
            try h.start(waitOnline: false)
            try h.waitFor("registered after the registrar's failure", timeout: 20) { try Self.registeredOnline(h) }
            #expect(try h.emulator.control.faultCount("registrar_failed") == 1)
            #expect(try h.connectionFrames() == 2, "one failed login, one that registered")
            #expect(h.log().contains("may be transient"))
        }
    }

    @Test func aSilentRegistrarTimesOutAndIsRetried() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.emulator.control.setFaults(["registrar_silent_next": 1])
            try h.start(extra: ["--config", Self.config(h, "[sip]\nregister_timeout = 1\n")], waitOnline: false)
            try h.waitFor("registered after the registrar's silence", timeout: 20) { try Self.registeredOnline(h) }
            #expect(try h.emulator.control.faultCount("registrar_silent") == 1)
            #expect(try h.connectionFrames() == 2)
        }
    }

    @Test func aRefusedUpgradeWaitsForItsRetryAfter() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.emulator.control.setFaults(["upgrade_refuse_next": 2, "upgrade_retry_after": 1])
            let started = Date().timeIntervalSince1970
            try h.start(waitOnline: false)
            try h.waitFor("online after two refused upgrades", timeout: 20) { try Self.registeredOnline(h) }
            #expect(try h.emulator.control.faultCount("upgrade_refused") == 2)
            // The server asked for 1 s each time: the admitted socket comes at least 2 s after the start.
            let admitted = try #require(try h.emulator.control.get("/attempts")["first"]?.doubleValue)
            print("503 + Retry-After 1 (twice): online attempt \(String(format: "%.2f", admitted - started)) s after the start")
            #expect(admitted - started >= 2)
            #expect(h.log().contains("HTTP 503") && h.log().contains("the server asked for 1 s"))
        }
    }

    @Test func aCloseWith1013BeforeTheSessionIsRetriedLater() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.emulator.control.setFaults(["close_1013_next": 2])
            try h.start(waitOnline: false)
            try h.waitFor("online after two 1013 closes", timeout: 20) { try Self.registeredOnline(h) }
            let log = try h.emulator.control.get("/attempts")
            #expect(log["refused"] == 2 && log["admitted"] == 1, "\(log)")
            let times = (log["attempts"]?.arrayValue ?? []).compactMap { $0["time"]?.doubleValue }
            #expect(times.count == 3)
            if times.count == 3 {
                print("1013 twice: attempts \(String(format: "%.2f", times[1] - times[0])) s and \(String(format: "%.2f", times[2] - times[1])) s apart")
                #expect(times[1] - times[0] >= Agent.busyServerFloor && times[2] - times[1] >= Agent.busyServerFloor)
            }
        }
    }

    @Test func aStalledTLSHandshakeTimesOutAndIsRetried() async throws {
        try await onThread {
            let certs = try TestCertificates.shared()
            let h = try AgentHarness { _ in ["--tls-cert", certs.serverCertificate, "--tls-key", certs.serverKey] }
            try h.emulator.control.setFaults(["handshake_stall": true])
            try h.start(extra: ["--ca-file", certs.caFile, "--config", Self.config(h, "[server]\nconnect_timeout = 0.5\n")],
                        waitOnline: false)
            try h.waitFor("two stalled attempts", timeout: 20) { h.log().components(separatedBy: "timed out").count > 2 }
            #expect(try h.status()["state"] != "failed")
            try h.emulator.control.setFaults(["handshake_stall": false])
            try h.waitFor("online once the handshake is answered", timeout: 20) { try Self.registeredOnline(h) }
        }
    }

    @Test func aRegistrationLostWhileOnlineLogsInAgain() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            try h.emulator.control.sendFrame("fail", data: [["apiMethod": "RegistrationStatusEvent", "status": "CONNECTION_ERROR",
                                                              "info": "Registrar did not answer"]], login: AgentHarness.login)
            try h.waitFor("a second login", timeout: 20) { try h.connectionFrames() == 2 }
            try h.waitFor("registered again", timeout: 20) { try Self.registeredOnline(h) }
        }
    }

    @Test func aRefusalOfOurCredentialsStopsAndSaysSo() async throws {
        try await onThread {
            let h = try AgentHarness(password: "wrong-password")
            try h.start(waitOnline: false)
            try h.waitFor("registration_failed", timeout: 20) { try h.status()["state"] == "registration_failed" }
            Thread.sleep(forTimeInterval: 2)
            let status = try h.status()
            #expect(status["state"] == "registration_failed" && (status["next_retry_in_seconds"] == nil || status["next_retry_in_seconds"] == .null))
            #expect(status["last_error"]?.stringValue?.contains("AUTHENTICATION_FAIL") == true)
            #expect(try h.connectionFrames() == 1, "no retry after a refusal of the credentials")
            #expect(h.log().contains("not retrying"))
        }
    }
}
