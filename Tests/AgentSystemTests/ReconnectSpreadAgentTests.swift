import Foundation
import Testing
import TestSupport
import WCSSession

/// The reconnect spread in the real `wcs-agent` binary against the emulator: a server close waits
/// a random time inside [0, W) and then resumes; a push (`wcs-agent reconnect`) during that wait goes
/// at once; a token refused after a server restart logs in only after the spread (or at once when
/// pushed, also from sleep); a loss on our side (a cut TCP connection) never waits for the spread.
@Suite(.serialized) struct ReconnectSpreadAgentTests {
    /// The connection attempts the emulator logged for the agent's login since `since` (epoch seconds).
    static func attempts(_ h: AgentHarness, since: Double) throws -> [(time: Double, kind: String)] {
        let log = try h.emulator.control.get("/attempts?since=\(since)")
        return (log["attempts"]?.arrayValue ?? []).compactMap { entry in
            guard entry["login"]?.stringValue == AgentHarness.login, let time = entry["time"]?.doubleValue,
                  let kind = entry["kind"]?.stringValue else { return nil }
            return (time, kind)
        }
    }

    /// The agent's announced wait, once it is waiting for its next attempt.
    static func waitingSeconds(_ h: AgentHarness) throws -> Double {
        var seconds: Double?
        try h.waitFor("waiting to retry") {
            let status = try h.status()
            guard status["state"] == "waiting_to_retry", case .number(let s)? = status["next_retry_in_seconds"] else { return false }
            seconds = s
            return true
        }
        return seconds ?? -1
    }

    @Test func aServerCloseWaitsInsideTheSpreadThenResumes() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start(extra: ["--reconnect-spread", "4"])
            let closedAt = Date().timeIntervalSince1970
            try h.emulator.control.close(login: AgentHarness.login, code: 1001)
            #expect(try Self.waitingSeconds(h) < 4)
            try h.waitFor("resumed after the spread", timeout: 20) {
                let s = try h.status()
                return s["state"] == "online" && s["resumes"]?.intValue == 1
            }
            let tries = try Self.attempts(h, since: closedAt)
            #expect(tries.map(\.kind) == ["resume"], "one resume, no login: \(tries)")
            // Inside [0, W) after the close (plus slack for a loaded machine).
            #expect(tries.allSatisfy { $0.time - closedAt < 4 + 2 }, "\(tries)")
            #expect(h.log().contains("first attempt in"))
        }
    }

    @Test func aPushDuringTheSpreadGoesAtOnce() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start(extra: ["--reconnect-spread", "3600"])
            let closedAt = Date().timeIntervalSince1970
            try h.emulator.control.close(login: AgentHarness.login, code: 1001)
            #expect(try Self.waitingSeconds(h) > 0)
            #expect(try Self.attempts(h, since: closedAt).isEmpty, "nothing before the push")
            let started = Date()
            let woke = try h.cli(["reconnect", "--json", "--socket", h.socketPath])
            let took = Date().timeIntervalSince(started)
            #expect(woke.code == 0)
            #expect(try JSONValue.parse(woke.output)["outcome"] == "resumed")
            #expect(took < 5, "the push waited for the spread: \(took) s")
            #expect(try Self.attempts(h, since: closedAt).map(\.kind) == ["resume"])
            #expect(try h.status()["next_retry_in_seconds"] == .null)
        }
    }

    @Test func aTokenRefusedAfterARestartLogsInAfterTheSpreadOrWhenPushed() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start(extra: ["--reconnect-spread", "3600"])
            let restartedAt = Date().timeIntervalSince1970
            // Aborted sockets look like a loss on our side: the agent resumes at once, and the
            // restarted server refuses the token. That refusal is what waits for the spread.
            try h.emulator.control.restart(abort: true)
            try h.waitFor("the token refused, the login waiting for the spread") {
                let s = try h.status()
                return s["has_token"] == false && s["state"] == "waiting_to_retry"
            }
            #expect(try Self.waitingSeconds(h) > 1)
            #expect(try Self.attempts(h, since: restartedAt).map(\.kind) == ["token_refused"])
            let woke = try h.cli(["reconnect", "--json", "--socket", h.socketPath])
            #expect(try JSONValue.parse(woke.output)["outcome"] == "logged_in")
            #expect(try Self.attempts(h, since: restartedAt).map(\.kind) == ["token_refused", "login"])
            #expect(try h.emulator.control.sessions().first?.registered == true)
        }
    }

    @Test func aPushToASleepingAgentAfterARestartLogsInAtOnce() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start(extra: ["--reconnect-spread", "3600"])
            #expect(try h.cli(["sleep", "--socket", h.socketPath]).code == 0)
            let restartedAt = Date().timeIntervalSince1970
            try h.emulator.control.restart()
            // The push's resume is refused (the server lost the session): it logs in within the same
            // attempt, it does not wait for the spread.
            let woke = try h.cli(["reconnect", "--json", "--socket", h.socketPath])
            #expect(try JSONValue.parse(woke.output)["outcome"] == "relogged_in")
            #expect(try Self.attempts(h, since: restartedAt).map(\.kind) == ["token_refused", "login"])
            #expect(try h.status()["state"] == "online")
        }
    }

    @Test func aLossOnOurSideNeverWaitsForTheSpread() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start(extra: ["--reconnect-spread", "3600"])
            try h.emulator.control.cut(login: AgentHarness.login)
            try h.waitFor("resume at once after a cut", timeout: 10) {
                let s = try h.status()
                return s["state"] == "online" && s["resumes"]?.intValue == 1
            }
            #expect(!h.log().contains("first attempt in"))
        }
    }
}
