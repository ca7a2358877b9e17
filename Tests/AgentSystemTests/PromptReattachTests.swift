import Foundation
import Testing
import TestSupport

/// A terminal left attached survives a daemon restart (what a package upgrade does): the prompt
/// says the daemon went away, waits, attaches again with a line that says so, and rings again.
@Suite(.serialized) struct PromptReattachTests {
    static let flags = ["--answer", "manual", "--media-address", "127.0.0.1", "--audio-source", "tone:440", "--audio-sink", "null"]

    @Test func thePromptAttachesAgainWhenTheDaemonRestarts() async throws {
        try await onThread {
            let h = try PromptTests.startAgent()
            let prompt = try PromptTests.attach(h)
            var mark = prompt.mark
            #expect(h.stop() == 0)
            try prompt.waitFor(text: "waiting for it to come back", since: mark)
            #expect(prompt.waitForExit(timeout: 1) == nil, "the prompt must stay while the daemon is away")

            mark = prompt.mark
            try h.start(extra: Self.flags)
            try prompt.waitFor(text: "wcs-agent is back: attached again", since: mark, timeout: 20)
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "1007", displayName: "Eve", source: "tone:440")
            try prompt.waitFor(text: PromptTests.ringLine("Eve", "1007"), since: mark)
            prompt.type("a")
            try h.waitFor("answered at the emulator") { try h.emulator.control.call(ring.callId)?.state == "established" }
            prompt.type("q")
            #expect(prompt.waitForExit(timeout: 10) == 0)
        }
    }
}
