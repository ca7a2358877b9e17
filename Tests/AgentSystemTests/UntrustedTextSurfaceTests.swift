import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// Issue 19, invariant (b), end to end with the real binaries: a caller whose display name, number
/// and call id carry a terminal attack (OSC 52 clipboard write, ESC [2J, bidi overrides, 8-bit CSI)
/// reaches no output surface raw: `calls`, `status`, `events` (human and JSON), `calls --json`,
/// `metrics`, the call's errors, `history` (human and JSON), the log, the hook's environment and
/// the recording's file name. The prompt has its own test below (a pseudo-terminal).
@Suite(.serialized) struct UntrustedTextSurfaceTests {
    static let hostileName = "Door\u{1b}]52;c;cm0gLXJmIH4=\u{7}\u{1b}[2J\u{202e}gnp.exe\u{2066}\u{9b}31m"
    static let hostileNumber = "10\u{1b}[31m02\u{202e}"
    static let hostileCallId = "../odd/1 \u{1b}[2J\u{202e}été/\u{7f}x"

    /// The scalars that must never come out raw.
    static func rawAttack(in text: String) -> [String] {
        var found: [String] = []
        for scalar in text.unicodeScalars where scalar != "\n" && UntrustedText.isUnsafe(scalar) {
            found.append("U+" + String(scalar.value, radix: 16))
        }
        return found
    }

    @Test func noSurfaceShowsTheCallersAttackRaw() async throws {
        try await onThread {
            let h = try AgentHarness()
            let hookOutput = h.scratch.file("hook-env")
            let recordings = h.scratch.file("recordings")
            let config = h.scratch.file("agent.conf")
            try "[hooks]\non_call_end = env | grep ^WCS_ > \(hookOutput)\n".write(toFile: config, atomically: true, encoding: .utf8)
            try h.start(extra: ["--config", config, "--answer", "manual", "--audio-sink", "record:\(recordings)",
                                "--audio-source", "silence", "--media-address", "127.0.0.1"])
            let sock = ["--socket", h.socketPath]
            let events = try ChildProcess(executable: AgentHarness.binary, arguments: ["events"] + sock)
            defer { events.kill() }
            let eventsJSON = try ChildProcess(executable: AgentHarness.binary, arguments: ["events", "--json"] + sock)
            defer { eventsJSON.kill() }
            usleep(300_000)
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: Self.hostileNumber,
                                                   displayName: Self.hostileName, callId: Self.hostileCallId)
            try h.waitFor("the call rings at the agent") { try CallControlTests.statusCall(h, ring.callId) != nil }

            var surfaces: [(String, String)] = []
            surfaces.append(("calls", try h.cli(["calls"] + sock).output))
            surfaces.append(("calls --json", try h.cli(["calls", "--json"] + sock).output))
            surfaces.append(("status", try h.cli(["status"] + sock).output))
            surfaces.append(("status --json", try h.cli(["status", "--json"] + sock).output))
            surfaces.append(("metrics", try h.cli(["metrics"] + sock).output))
            let refused = try ChildProcess(executable: AgentHarness.binary, arguments: ["hold", ring.callId] + sock,
                                           stderrPath: h.scratch.file("hold-stderr"))
            _ = refused.waitForExit(timeout: 10)
            surfaces.append(("hold's error", (try? String(contentsOfFile: h.scratch.file("hold-stderr"), encoding: .utf8)) ?? ""))
            surfaces.append(("events", try events.readLine(timeout: 10)))
            surfaces.append(("events --json", try eventsJSON.readLine(timeout: 10)))

            // The human table shows the name escaped, readable, on one row.
            let table = surfaces[0].1
            #expect(table.contains("Door\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\u{202e}gnp.exe"), "\(table)")
            #expect(table.split(separator: "\n").count == 2, "one header and one row: \(table)")
            // JSON keeps the value (escaped as JSON): a JSON reader gets the caller's exact text.
            let listed = try JSONValue.parse(surfaces[1].1)["calls"]?.arrayValue?.first
            #expect(listed?["display_name"]?.stringValue == Self.hostileName)
            #expect(listed?["call_id"]?.stringValue == Self.hostileCallId)

            try h.cli(["decline", ring.callId] + sock)
            _ = try CallControlTests.waitForRecord(h, ring.callId)
            try h.waitFor("the on_call_end hook ran") { FileManager.default.fileExists(atPath: hookOutput) }
            usleep(200_000)
            surfaces.append(("history", try h.cli(["history", "--state-dir", h.stateDir]).output))
            surfaces.append(("history --json", try h.cli(["history", "--json", "--state-dir", h.stateDir]).output))
            surfaces.append(("hook environment", (try? String(contentsOfFile: hookOutput, encoding: .utf8)) ?? ""))
            surfaces.append(("log", h.log()))
            #expect(surfaces.last!.1.contains("\\x1b[2J\\u{202e}été/\\x7fx"), "the log names the call, escaped")

            for (surface, text) in surfaces {
                #expect(!text.isEmpty, "\(surface) printed nothing")
                #expect(Self.rawAttack(in: text).isEmpty, "\(surface) shows \(Self.rawAttack(in: text)) raw: \(text.debugDescription.prefix(600))")
            }
            let hook = surfaces.first { $0.0 == "hook environment" }!.1
            #expect(hook.contains("WCS_CALL_KEY=" + SafeFileName.stem(for: Self.hostileCallId)), "\(hook)")
        }
    }

    /// A push whose call id and handle (the caller) carry the attack, for a call the server never
    /// announces: the `reconnect --payload` line, the missed-call record in `history` and the log
    /// show them escaped.
    @Test func aHostilePushIsShownEscaped() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            try h.sleepAgent()
            let payload = #"{"id":"ghost\u001b[2J\u202e","uuid":"u-1","handle":"\u001b]52;c;eA==\u0007\u009b31m"}"#
            let file = h.scratch.file("push.json")
            try payload.write(toFile: file, atomically: true, encoding: .utf8)
            let line = try h.cli(["reconnect", "--payload", file, "--socket", h.socketPath])
            #expect(line.output.contains("push for call ghost\\x1b[2J\\u{202e}"), "\(line.output)")
            try h.waitFor("the missed call recorded") { h.callRecords().count == 1 }
            let surfaces = [("reconnect --payload", line.output), ("history", try h.cli(["history", "--state-dir", h.stateDir]).output),
                            ("log", h.log())]
            for (surface, text) in surfaces {
                #expect(Self.rawAttack(in: text).isEmpty, "\(surface) shows \(Self.rawAttack(in: text)) raw")
            }
        }
    }

    /// The prompt (a real pseudo-terminal): the ringing line shows the name escaped; the raw attack
    /// (OSC 52, the 8-bit CSI, the bidi overrides) never reaches the terminal.
    @Test func thePromptShowsTheNameEscaped() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start(extra: ["--answer", "manual", "--audio-sink", "null", "--audio-source", "silence"])
            let prompt = try PromptTests.attach(h)
            let before = prompt.mark
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "1002", displayName: Self.hostileName)
            try prompt.waitFor(text: "Incoming call from Door\\x1b]52;c;", since: before)
            let raw = prompt.raw(since: before)
            for needle in ["\u{1b}]52", "\u{202e}", "\u{2066}", "\u{9b}", "\u{1b}[2J"] {
                #expect(!raw.contains(needle), "the prompt wrote \(needle.debugDescription) raw")
            }
            try h.cli(["decline", ring.callId, "--socket", h.socketPath])
        }
    }
}
