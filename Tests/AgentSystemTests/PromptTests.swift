import Foundation
import Testing
import TestSupport
import WCSSession
#if canImport(Glibc)
import Glibc
#endif

/// `wcs-agent prompt` in a real pseudo-terminal against the real daemon and the emulator (WebRTC audio).
@Suite(.serialized) struct PromptTests {
    static func startAgent() throws -> AgentHarness {
        let h = try AgentHarness(media: .webrtc)
        try h.start(extra: ["--answer", "manual", "--media-address", "127.0.0.1",
                            "--audio-source", "tone:440", "--audio-sink", "null"])
        return h
    }

    static func attach(_ h: AgentHarness) throws -> PromptTerminal {
        let prompt = try PromptTerminal(AgentHarness.binary, ["prompt", "--socket", h.socketPath])
        try prompt.waitFor(text: "wcs-agent: online (registered)")
        return prompt
    }

    static func ringLine(_ name: String, _ number: String) -> String {
        "Incoming call from \(name) <\(number)>  [a]nswer  [d]ecline  ("
    }

    /// True when `text` shows the call with a running duration of at least one second.
    static func showsTalking(_ text: String, _ party: String) -> Bool {
        text.range(of: "Call with \(party)  0:0[1-9]", options: .regularExpression) != nil
    }

    @Test func answersHoldsMutesSendsDTMFAndHangsUpFromTheKeyboard() async throws {
        try await onThread {
            let h = try Self.startAgent()
            let prompt = try Self.attach(h)
            let before = prompt.mark
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "1002", displayName: "Alice", source: "tone:440")
            try prompt.waitFor(text: Self.ringLine("Alice", "1002"), since: before)
            #expect(prompt.contains(byte: 0x07, since: before), "the ring rings the bell")
            let ringText = prompt.screen(since: before)
            #expect(ringText.range(of: #"\[d\]ecline  \((2\d|30) s\)"#, options: .regularExpression) != nil, "countdown from 30 s")

            prompt.type("a")
            try h.waitFor("call established") { try h.emulator.control.call(ring.callId)?.state == "established" }
            let answered = prompt.mark
            try prompt.waitFor("the call with a duration", since: answered) { Self.showsTalking($0, "Alice <1002>") }

            // Call control keys act on the daemon's call.
            var mark = prompt.mark
            prompt.type("m")
            try prompt.waitFor("mute shown", since: mark) { $0.contains("[muted]") }
            mark = prompt.mark
            prompt.type("p")
            try prompt.waitFor("hold shown", since: mark) { $0.contains("[on hold]") }
            try h.waitFor("held at the emulator") { try h.emulator.control.call(ring.callId)?.state == "held" }
            mark = prompt.mark
            prompt.type("p")
            try h.waitFor("resumed at the emulator") { try h.emulator.control.call(ring.callId)?.state == "established" }
            mark = prompt.mark
            prompt.type("5#")
            try h.waitFor("dtmf at the emulator", timeout: 10) { try h.emulator.control.call(ring.callId)?.dtmf == "5#" }
            #expect(kill(prompt.pid, 0) == 0, "the prompt still runs")

            prompt.type("h")
            try h.waitFor("call ended") { try h.emulator.control.call(ring.callId)?.state == "ended" }
            #expect(try h.emulator.control.call(ring.callId)?.endReason == "local_hangup")
            try prompt.waitFor(text: "Call with Alice <1002> ended", since: answered)

            prompt.type("q")
            #expect(prompt.waitForExit(timeout: 10) == 0)
            #expect(prompt.screen.contains("detached"))
            #expect(prompt.localFlags() & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO), "the terminal is back in cooked mode")
            #expect(h.daemon?.isRunning == true)
            #expect(try h.status()["state"] == "online")
        }
    }

    @Test func twoAttachedPromptsSeeWhatTheOtherDoes() async throws {
        try await onThread {
            let h = try Self.startAgent()
            let first = try Self.attach(h)
            let second = try Self.attach(h)
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "1003", displayName: "Bob", source: "tone:440")
            try first.waitFor(text: Self.ringLine("Bob", "1003"))
            try second.waitFor(text: Self.ringLine("Bob", "1003"))
            #expect(second.contains(byte: 0x07))

            let mark = second.mark
            first.type("a")
            try h.waitFor("call established") { try h.emulator.control.call(ring.callId)?.state == "established" }
            try second.waitFor("the other prompt shows the answered call", since: mark) { Self.showsTalking($0, "Bob <1003>") }
            try first.waitFor("the answering prompt shows the call") { Self.showsTalking($0, "Bob <1003>") }

            second.type("h")
            try h.waitFor("call ended") { try h.emulator.control.call(ring.callId)?.state == "ended" }
            try first.waitFor(text: "Call with Bob <1003> ended", since: mark)
            first.type("q")
            second.type("q")
            #expect(first.waitForExit(timeout: 10) == 0)
            #expect(second.waitForExit(timeout: 10) == 0)
            #expect(h.daemon?.isRunning == true)
        }
    }

    @Test func declinesARingingCall() async throws {
        try await onThread {
            let h = try Self.startAgent()
            let prompt = try Self.attach(h)
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "1004", displayName: "Carol")
            try prompt.waitFor(text: Self.ringLine("Carol", "1004"))
            let mark = prompt.mark
            prompt.type("d")
            try h.waitFor("call ended") { try h.emulator.control.call(ring.callId)?.state == "ended" }
            #expect(try h.emulator.control.call(ring.callId)?.endReason == "declined")
            let text = try prompt.waitFor(text: "Call with Carol <1004> ended (declined", since: mark)
            let after = try #require(text.range(of: "ended (declined", options: .backwards))
            #expect(!text[after.upperBound...].contains("Incoming call"), "the ring line is gone")
            #expect(prompt.localFlags() & tcflag_t(ICANON | ECHO) == 0, "raw mode while attached")
            kill(prompt.pid, SIGTERM)
            #expect(prompt.waitForExit(timeout: 10) == 128 + SIGTERM)
            #expect(prompt.localFlags() & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO), "SIGTERM restores the terminal")
            #expect(h.daemon?.isRunning == true)
        }
    }

    @Test func typesATransferTargetAndEscCancels() async throws {
        try await onThread {
            let h = try Self.startAgent()
            let prompt = try Self.attach(h)
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "1005", displayName: "Dan", source: "tone:440")
            try prompt.waitFor(text: Self.ringLine("Dan", "1005"))
            prompt.type("a")
            try prompt.waitFor("talking") { Self.showsTalking($0, "Dan <1005>") }
            var mark = prompt.mark
            prompt.type("t12")
            try prompt.waitFor(text: "Transfer Dan <1005> to: 12_", since: mark)
            prompt.type("\u{1B}")
            try prompt.waitFor("the input line gone", since: mark) { $0.contains("[h]ang up") && $0.hasSuffix("[q] detach") }
            #expect(try h.emulator.control.call(ring.callId)?.transferTarget == nil)
            mark = prompt.mark
            prompt.type("t1006\r")
            try h.waitFor("transfer at the emulator") { try h.emulator.control.call(ring.callId)?.transferTarget == "1006" }
            try h.emulator.control.hangup(callId: ring.callId)
            try prompt.waitFor(text: "Call with Dan <1005> ended", since: mark)
            prompt.type("\u{03}")  // Ctrl-C detaches too
            #expect(prompt.waitForExit(timeout: 10) == 0)
        }
    }

    @Test func withoutATerminalItWorksLineByLine() async throws {
        try await onThread {
            let h = try Self.startAgent()
            let result = try h.cli(["prompt", "--socket", h.socketPath])  // stdin is /dev/null
            #expect(result.code == 0)
            #expect(result.output.contains("wcs-agent: online (registered)"))
            #expect(!result.output.contains("\u{1B}["), "no escape codes without a terminal")
        }
    }

    @Test func withoutADaemonItSaysSoAndExits3() async throws {
        try await onThread {
            let scratch = ScratchDirectory()
            let prompt = try PromptTerminal(AgentHarness.binary, ["prompt", "--socket", scratch.file("none.sock")])
            #expect(prompt.waitForExit(timeout: 10) == 3)
            #expect(prompt.screen.contains("wcs-agent is not running"))
        }
    }
}
