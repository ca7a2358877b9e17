import Foundation
import Testing
import TestSupport
import WCSSession

/// A sleeping agent against the server variants that decide whether its session survives (issue 19):
/// where the session survived there is no relogin, and the SIP password goes on the wire once per real
/// login (a login the emulator's attempt log shows as `login`).
@Suite(.serialized) struct SleepVariantMatrixTests {
    /// Logins the emulator saw (attempt kind `login`) and SIP passwords it received.
    static func loginsAndPasswords(_ h: AgentHarness) throws -> (logins: Int, passwords: Int) {
        let logins = try ReconnectSpreadAgentTests.attempts(h, since: 0).filter { $0.kind == "login" }.count
        return (logins, try SleepRefreshAgentTests.passwordsSent(h))
    }

    /// Keep time 2 s, two keep-time refreshes (past the server's keep time) while asleep: one server session throughout, the token
    /// the server holds now is the one stored, no relogin.
    @Test(arguments: [ServerVariant.noSessionId, .noSessionIdRotated, .tokenOnce, .rotatedToken])
    func refreshesKeepTheSession(_ variant: ServerVariant) async throws {
        try await onThread {
            let h = try AgentHarness(media: variant.media) { _ in variant.arguments + ["--keepalive-ttl", "2"] }
            try h.start(extra: ["--session-keep", "2"])
            let first = try #require(try h.emulator.control.sessions(login: AgentHarness.login).first)
            #expect(try h.cli(["sleep", "--socket", h.socketPath]).code == 0)
            try h.waitFor("two refreshes", timeout: 20) { try SleepRefreshAgentTests.sleepStatus(h)["refreshes"]?.intValue ?? 0 >= 2 }
            try h.waitFor("asleep again") { try h.status()["state"] == "asleep" }
            let sessions = try h.emulator.control.sessions(login: AgentHarness.login)
            #expect(sessions.map(\.id) == [first.id], "\(variant.name): one server session")
            #expect(try h.storedToken()["token"]?.stringValue == sessions.first?.token, "\(variant.name): the server's token stored")
            let sent = try Self.loginsAndPasswords(h)
            #expect(sent.logins == 1 && sent.passwords == 1, "\(variant.name): \(sent)")
            #expect(try SleepRefreshAgentTests.sleepStatus(h)["sessions_lost"] == 0)
            // ...and a call reaches it by push, rings after the wake and is the old session's.
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000")
            #expect(ring.pushed)
            let woke = try h.cli(["reconnect", "--json", "--socket", h.socketPath])
            #expect(try JSONValue.parse(woke.output)["outcome"]?.stringValue?.hasPrefix("resumed") == true, "\(variant.name): \(woke.output)")
            try h.waitFor("the call rings") { try CallControlTests.statusCall(h, ring.callId) != nil }
            #expect(try Self.loginsAndPasswords(h).passwords == 1)
        }
    }

    /// The server restarts while the agent sleeps. A server that keeps sessions: the next wake resumes,
    /// no relogin. One that forgets them: exactly one fresh login, reported as lost while asleep.
    @Test(arguments: [ServerVariant.restartForgets, .restartKeeps])
    func restartWhileAsleep(_ variant: ServerVariant) async throws {
        try await onThread {
            let h = try AgentHarness(media: variant.media) { _ in variant.arguments }
            try h.start()
            #expect(try h.cli(["sleep", "--socket", h.socketPath]).code == 0)
            try h.emulator.control.post("/restart")  // the variant's own choice
            let woke = try h.cli(["reconnect", "--json", "--socket", h.socketPath])
            let outcome = try JSONValue.parse(woke.output)["outcome"]?.stringValue
            let sent = try Self.loginsAndPasswords(h)
            let lost = try SleepRefreshAgentTests.sleepStatus(h)["sessions_lost"]?.intValue
            if variant.name == ServerVariant.restartKeeps.name {
                #expect(outcome == "resumed" && sent.logins == 1 && sent.passwords == 1 && lost == 0, "\(outcome ?? "?") \(sent)")
            } else {
                #expect(outcome == "relogged_in" && sent.logins == 2 && sent.passwords == 2 && lost == 1, "\(outcome ?? "?") \(sent)")
            }
            let live = try h.emulator.control.sessions(login: AgentHarness.login).filter(\.connected)
            #expect(live.count == 1 && live.first?.registered == true)
        }
    }
}
