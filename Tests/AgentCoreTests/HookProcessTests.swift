import TestSupport
import Foundation
import Testing
@testable import AgentCore

/// Hooks run via /bin/sh with a clean environment, are killed at their timeout and never throw.
@Suite struct HookProcessTests {
    @Test func outputAndEnvironment() async {
        let outcome = await HookProcess.run("echo \"$WCS_CALLER|${SECRET_THING:-none}|$PATH\"",
                                            environment: CallHooks.environment(["WCS_CALLER": "2000"]), timeout: 5)
        #expect(outcome.succeeded)
        let parts = outcome.output.trimmingCharacters(in: .newlines).split(separator: "|").map(String.init)
        #expect(parts.count == 3 && parts[0] == "2000" && parts[1] == "none" && !parts[2].isEmpty)
    }

    @Test func nothingFromOurEnvironmentLeaks() async {
        setenv("WCS_TEST_SECRET", "s3cr3t", 1)
        defer { unsetenv("WCS_TEST_SECRET") }
        let outcome = await HookProcess.run("env", environment: CallHooks.environment([:]), timeout: 5)
        #expect(outcome.succeeded)
        #expect(!outcome.output.contains("s3cr3t"))
    }

    @Test func aHangingHookIsKilledAtItsTimeoutWithItsChildren() async {
        let started = Date()
        let outcome = await HookProcess.run("sleep 60 & sleep 60", environment: CallHooks.environment([:]), timeout: 0.5)
        #expect(outcome.timedOut && !outcome.succeeded)
        #expect(Date().timeIntervalSince(started) < 30, "bounded, not 60 s")
        #expect(outcome.summary.contains("timeout"))
    }

    @Test func failingAndMissingHooks() async {
        let failing = await HookProcess.run("exit 3", environment: [:], timeout: 5)
        #expect(failing.exitStatus == 3 && !failing.succeeded)
        let missing = await HookProcess.run("/nonexistent/hook", environment: [:], timeout: 5)
        #expect(missing.exitStatus == 127)
    }

    @Test func displayNameIsTheFirstLineTrimmedAndBounded() {
        #expect(CallHooks.displayName(from: "\n  Alice Example  \nsecond\n") == "Alice Example")
        #expect(CallHooks.displayName(from: "   \n") == nil)
        #expect(CallHooks.displayName(from: String(repeating: "x", count: 300))?.count == 100)
        #expect(CallHooks.displayName(from: "Bob\u{1b}[31m") == "Bob[31m")
    }
}
