import Foundation
import Testing
import TestSupport
import WCSSession

/// The real daemon (`wcs-agent run`) and CLI verbs against the WCS emulator. Each test body runs on
/// its own thread (`onThread`): it blocks on child processes and must not hold the test pool.
@Suite(.serialized) struct AgentDaemonTests {
    @Test func holdsASessionStoresTheTokenAndReportsStatus() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let status = try h.status()
            #expect(status["registered"] == true)
            #expect(status["server"]?.stringValue == h.emulator.url)
            #expect(status["connected_since"]?.stringValue != nil)
            let sessions = try h.emulator.control.sessions()
            #expect(sessions.count == 1)
            let session = try #require(sessions.first)
            #expect(status["session_id"]?.stringValue == session.id)
            // The token file: 0600, the server's token, written for this server.
            let attributes = try FileManager.default.attributesOfItem(atPath: h.stateDir + "/token.json")
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let stored = try h.storedToken()
            #expect(stored["token"]?.stringValue == session.token)
            #expect(stored["server"]?.stringValue == h.emulator.url)
            // Secrets appear nowhere: not in status, not in the debug log.
            let human = try h.cli(["status", "--socket", h.socketPath])
            #expect(human.code == 0 && human.output.contains("online (registered)"))
            for text in [status.serialized(), human.output, h.log()] {
                #expect(!text.contains(session.token))
                #expect(!text.contains(AgentHarness.password))
            }
            #expect(h.log().contains("logged in and registered"))
        }
    }

    @Test func sleepThenReconnectResumesTheSameServerSession() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let id = try #require(try h.emulator.control.sessions().first?.id)
            let slept = try h.cli(["sleep", "--socket", h.socketPath])
            #expect(slept.code == 0)
            try h.waitFor("detached session") { try h.emulator.control.sessions().first?.connected == false }
            #expect(try h.status()["state"] == "asleep")
            Thread.sleep(forTimeInterval: 1)
            #expect(try h.status()["state"] == "asleep", "stays asleep: no reconnect on its own")
            let woke = try h.cli(["reconnect", "--json", "--socket", h.socketPath])
            #expect(woke.code == 0)
            #expect(try JSONValue.parse(woke.output)["outcome"] == "resumed")
            let sessions = try h.emulator.control.sessions()
            #expect(sessions.map(\.id) == [id])
            #expect(sessions.first?.connected == true)
            let again = try h.cli(["reconnect", "--json", "--socket", h.socketPath])
            #expect(again.code == 0)
            #expect(try JSONValue.parse(again.output)["outcome"] == "already_online")
            // The token file keeps the server's address: a wake after a restart connects there first.
            #expect(try h.storedToken()["address"]?.stringValue == "127.0.0.1")
        }
    }

    @Test func aCutSocketResumesByItself() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let id = try #require(try h.emulator.control.sessions().first?.id)
            try h.emulator.control.cut(login: AgentHarness.login)
            try h.waitFor("resume after cut") {
                let s = try h.status()
                return s["state"] == "online" && s["resumes"]?.intValue == 1
            }
            #expect(try h.emulator.control.sessions().map(\.id) == [id])
            #expect(try h.emulator.control.sessions().first?.connected == true)
        }
    }

    @Test func anExpiredTokenLeadsToAFreshLoginAndANewStoredToken() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let old = try #require(try h.storedToken()["token"]?.stringValue)
            #expect(try h.cli(["sleep", "--socket", h.socketPath]).code == 0)
            try h.emulator.control.expireToken(token: old)
            let woke = try h.cli(["reconnect", "--json", "--socket", h.socketPath])
            #expect(woke.code == 0)
            #expect(try JSONValue.parse(woke.output)["outcome"] == "relogged_in")
            let fresh = try #require(try h.storedToken()["token"]?.stringValue)
            #expect(fresh != old)
            #expect(try h.emulator.control.sessions().map(\.token) == [fresh])
        }
    }

    @Test func aServerRestartThatLosesEverySessionEndsInAFreshLogin() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let old = try #require(try h.storedToken()["token"]?.stringValue)
            try h.emulator.control.restart()
            try h.waitFor("a new session after the restart", timeout: 30) {
                let fresh = try h.storedToken()["token"]?.stringValue
                let state = try h.status()["state"]
                return fresh != nil && fresh != old && state == "online"
            }
            let sessions = try h.emulator.control.sessions()
            #expect(sessions.count == 1 && sessions.first?.registered == true)
            #expect(sessions.first?.token == (try h.storedToken()["token"]?.stringValue))
        }
    }

    @Test func aWrongPasswordIsAClearErrorWithoutARetryStorm() async throws {
        try await onThread {
            let h = try AgentHarness(password: "not-the-password")
            try h.start(waitOnline: false)
            try h.waitFor("registration failure") { try h.status()["state"] == "registration_failed" }
            let status = try h.status()
            #expect(status["last_error"]?.stringValue?.contains("AUTHENTICATION_FAIL") == true)
            Thread.sleep(forTimeInterval: 2)
            #expect(try h.connectionFrames() == 1, "no automatic retries")
            #expect(try h.status()["state"] == "registration_failed")
            #expect(!FileManager.default.fileExists(atPath: h.stateDir + "/token.json"))
            let woke = try h.cli(["reconnect", "--socket", h.socketPath])
            #expect(woke.code == 4, "reconnect says the session is not back")
            #expect(!h.log().contains("not-the-password"))
        }
    }

    @Test func aPushForACallToASleepingAgentEndsWithTheCallInEvents() async throws {
        try await onThread {
            let h = try AgentHarness { scratch in
                ["--push-command", "\(AgentHarness.binary) reconnect --socket \(scratch.file("control.sock"))"]
            }
            try h.start()
            let events = try ChildProcess(executable: AgentHarness.binary,
                                          arguments: ["events", "--json", "--socket", h.socketPath],
                                          stderrPath: h.scratch.file("events.err"))
            defer { events.kill() }
            #expect(try h.cli(["sleep", "--socket", h.socketPath]).code == 0)
            try h.waitFor("detached session") { try h.emulator.control.sessions().first?.connected == false }
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", displayName: "Door")
            var incoming: JSONValue?
            var resumed: JSONValue?
            let deadline = Date().addingTimeInterval(20)
            while incoming == nil, Date() < deadline, let line = try? events.readLine(timeout: 20) {
                let event = try JSONValue.parse(line)
                if event["type"] == "incoming_call" { incoming = event }
                if event["type"] == "resumed" { resumed = event }
            }
            let readAt = Date().timeIntervalSince1970
            let call = try #require(incoming, "agent log:\n\(h.log().suffix(2000))")
            #expect(call["call_id"]?.stringValue == ring.callId)
            #expect(call["caller"] == "2000" && call["display_name"] == "Door")
            let pushes = try h.emulator.control.pushes()
            #expect(pushes.map(\.id) == [ring.callId])
            // `time_us`: the agent's own moment of having the session back, on the wall clock in µs:
            // after the push left the emulator, before this test read the event.
            let pushedAt = try #require(pushes.first?.time)
            let back = try #require(resumed?["time_us"]?.intValue, "resumed: \(String(describing: resumed))")
            #expect(Double(back) / 1e6 > pushedAt && Double(back) / 1e6 < readAt, "push \(pushedAt), back \(back)")
            try h.waitFor("online after the push") { try h.status()["state"] == "online" }
            let status = try h.status()
            #expect(status["calls"]?[0]?["call_id"]?.stringValue == ring.callId)
        }
    }

    @Test func fiftyReconnectsWithinASecondResumeExactlyOnce() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            #expect(try h.cli(["sleep", "--socket", h.socketPath]).code == 0)
            try h.waitFor("detached session") { try h.emulator.control.sessions().first?.connected == false }
            let before = try h.connectionFrames()
            let children = try (0..<50).map { i in
                try ChildProcess(executable: AgentHarness.binary, arguments: ["reconnect", "--socket", h.socketPath],
                                 stderrPath: h.scratch.file("burst-\(i).err"))
            }
            let codes = children.map { $0.waitForExit(timeout: 30) }
            #expect(codes.allSatisfy { $0 == 0 }, "every reconnect reports the session back: \(codes)")
            #expect(try h.connectionFrames() - before == 1, "exactly one resume on the wire")
            #expect(try h.status()["resumes"]?.intValue == 1)
        }
    }

    @Test func wssWorksWithTheGivenCAAndFailsClearlyWithout() async throws {
        try await onThread {
            let certs = try TestCertificates.shared()
            let h = try AgentHarness { _ in ["--tls-cert", certs.serverCertificate, "--tls-key", certs.serverKey] }
            #expect(h.emulator.scheme == "wss")
            try h.start(extra: ["--ca-file", certs.caFile])
            #expect(try h.status()["registered"] == true)
            _ = h.stop()

            let untrusted = try AgentHarness { _ in ["--tls-cert", certs.serverCertificate, "--tls-key", certs.serverKey] }
            try untrusted.start(waitOnline: false)
            try untrusted.waitFor("TLS failure reported") {
                try untrusted.status()["last_error"]?.stringValue?.lowercased().contains("certificate") == true
            }
            #expect(try untrusted.status()["state"] == "waiting_to_retry")
            #expect(try untrusted.emulator.control.sessions().isEmpty)
        }
    }

    @Test func verbsWithoutADaemonSaySoWithTheirOwnExitCode() async throws {
        try await onThread {
            let scratch = try TemporaryDirectory()
            for verb in ["status", "reconnect", "sleep"] {
                let child = try ChildProcess(executable: AgentHarness.binary, arguments: [verb, "--socket", scratch.file("none.sock")],
                                             stderrPath: scratch.file("err"))
                #expect(child.waitForExit(timeout: 10) == 3)
                let message = try String(contentsOfFile: scratch.file("err"), encoding: .utf8)
                #expect(message.contains("not running"))
            }
        }
    }

    @Test func thePasswordIsRefusedOnTheCommandLine() async throws {
        try await onThread {
            let scratch = try TemporaryDirectory()
            let child = try ChildProcess(executable: AgentHarness.binary,
                                         arguments: ["run", "--server", "ws://127.0.0.1:1", "--sip-password", "hunter22"],
                                         stderrPath: scratch.file("err"))
            #expect(child.waitForExit(timeout: 10) == 2)
            let message = try String(contentsOfFile: scratch.file("err"), encoding: .utf8)
            #expect(message.contains("--sip-password-file") && !message.contains("hunter22"))
        }
    }

    @Test func sigtermStopsCleanlyAndTheServerKeepsTheSession() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let id = try #require(try h.emulator.control.sessions().first?.id)
            #expect(h.stop() == 0)
            #expect(!FileManager.default.fileExists(atPath: h.socketPath))
            try h.waitFor("detached session") { try h.emulator.control.sessions().first?.connected == false }
            // A restart resumes the kept session from the stored token.
            try h.start()
            #expect(try h.emulator.control.sessions().map(\.id) == [id])
            #expect(try h.status()["session_id"]?.stringValue == id)
        }
    }
}
