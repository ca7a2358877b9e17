import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// The call variants of the emulator (Tests/Emulator/wcsemu/call_variants.py), issue 19 points 5
/// and 6 and invariants (b) and (c).
extension ServerVariant {
    static let duplicateNotify = ServerVariant(name: "late duplicate notifyIncomingCall", arguments: ["--duplicate-notify", "300"],
                                               media: .webrtc)
    static let answeredElsewhere = ServerVariant(name: "answered by another device", arguments: ["--answered-elsewhere", "0.5"])
    static let longCallIds = ServerVariant(name: "300-character call ids", arguments: ["--call-ids", "long"], media: .webrtc)
    static let oddCallIds = ServerVariant(name: "call ids with /, .., ESC and bidi", arguments: ["--call-ids", "odd"], media: .webrtc)
    static let hostileDisplayNames = ServerVariant(name: "hostile display names", arguments: ["--display-names", "hostile"])
    static let hostileEverything = ServerVariant(name: "hostile display names and odd call ids",
                                                 arguments: ["--display-names", "hostile", "--call-ids", "odd"])
}

extension ServerVariantMatrixTests {
    /// A call answered here stays ours and answerable whatever the server does with it: a late duplicate
    /// `notifyIncomingCall` leaves it talking (hold still works), an id of 300 characters or with `/`,
    /// ESC and bidi is answered, gets its own recording file, and exactly one `completed` record.
    @Test(arguments: [ServerVariant.webrtc, .duplicateNotify, .longCallIds, .oddCallIds])
    func anAnsweredCallStaysOurs(_ variant: ServerVariant) async throws {
        let violations = try await onThread { () throws -> [String] in
            let h = try AgentHarness(media: variant.media) { _ in variant.arguments }
            var problems = MatrixProbe(h)
            try h.start(extra: CallControlTests.audioFlags(h))
            let sock = ["--socket", h.socketPath]
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", source: "tone:440")
            let id = ring.callId
            guard (try? h.waitFor("answered", timeout: 25) { try h.emulator.control.call(id)?.state == "established" }) != nil else {
                return ["never answered (\(id.count) characters): \(try h.emulator.control.call(id)?.state ?? "?"); \(h.log().suffix(800))"]
            }
            if variant.arguments.contains("--duplicate-notify") {
                try h.waitFor("the duplicate notify sent") { (try h.emulator.control.call(id)?.duplicateNotifies ?? 0) >= 1 }
                usleep(300_000)
            }
            let listed = try CallControlTests.statusCall(h, id)
            if listed?["state"]?.stringValue != "established" || listed?["status"]?.stringValue != "ESTABLISHED" {
                problems.add("the talking call shows as \(listed?["state"]?.stringValue ?? "gone")/\(listed?["status"]?.stringValue ?? "?")")
            }
            let hold = try h.cli(["hold", id] + sock)
            if hold.code != 0 { problems.add("hold refused: \(hold.output)") }
            if (try? h.waitFor("held at the server", timeout: 5) { try h.emulator.control.call(id)?.state == "held" }) == nil {
                problems.add("not held at the server")
            }
            try h.emulator.control.hangup(callId: id)
            let record = try CallControlTests.waitForRecord(h, id)
            if record.endResult != .completed { problems.add("recorded \(record.endResult.rawValue)") }
            usleep(300_000)
            let records = try CallControlTests.records(h).filter { $0.callId == id }
            if records.count != 1 { problems.add("\(records.count) records of the call") }
            let recording = h.scratch.file("recordings") + "/" + SafeFileName.stem(for: id) + ".wav"
            if record.recording != recording { problems.add("recording \(record.recording ?? "none"), expected \(recording)") }
            if !FileManager.default.fileExists(atPath: recording) { problems.add("no recording file \(recording)") }
            return problems.violations
        }
        #expect(violations.isEmpty, "\(variant.name): \(violations.joined(separator: "; "))")
    }

    /// A call another device answered (`talk` without our answer) is never ours: recorded
    /// `answered_elsewhere` once, gone from `status`, and with `--answer after:N` the agent sends
    /// neither an answer nor a hangup for it.
    @Test(arguments: [ServerVariant.answeredElsewhere])
    func aCallAnsweredElsewhereIsNotOurs(_ variant: ServerVariant) async throws {
        let violations = try await onThread { () throws -> [String] in
            let h = try AgentHarness(media: variant.media) { _ in variant.arguments }
            var problems = MatrixProbe(h)
            try h.start(extra: ["--answer", "after:1.5", "--audio-sink", "null", "--audio-source", "silence"])
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000")
            let record = try CallControlTests.waitForRecord(h, ring.callId)
            if record.endResult != .answeredElsewhere { problems.add("recorded \(record.endResult.rawValue)") }
            if record.answered != nil { problems.add("recorded as answered by us") }
            Thread.sleep(forTimeInterval: 2)  // past the after:1.5 auto-answer
            let call = try h.emulator.control.call(ring.callId)
            if call?.state != "established" { problems.add("the other device's call is \(call?.state ?? "gone") at the server") }
            if (call?.answers ?? 0) != 0 { problems.add("the agent sent \(call?.answers ?? 0) answers for it") }
            if (call?.hangups ?? 0) != 0 { problems.add("the agent sent \(call?.hangups ?? 0) hangups for it") }
            if let listed = try CallControlTests.statusCall(h, ring.callId) { problems.add("status lists it: \(listed.serialized())") }
            try h.emulator.control.hangup(callId: ring.callId)
            Thread.sleep(forTimeInterval: 0.5)
            let records = try CallControlTests.records(h).filter { $0.callId == ring.callId }
            if records.count != 1 { problems.add("\(records.count) records of the call") }
            return problems.violations
        }
        #expect(violations.isEmpty, "\(variant.name): \(violations.joined(separator: "; "))")
    }

    /// The disclosed display name (OSC 52, ESC [2J, bidi override) and odd call ids: `calls`,
    /// `status`, `history` and the log show them escaped, never raw.
    @Test(arguments: [ServerVariant.hostileDisplayNames, .hostileEverything])
    func hostileTextNeverReachesTheTerminal(_ variant: ServerVariant) async throws {
        let violations = try await onThread { () throws -> [String] in
            let h = try AgentHarness(media: variant.media) { _ in variant.arguments }
            var problems = MatrixProbe(h)
            try h.start(extra: ["--answer", "manual", "--audio-sink", "null", "--audio-source", "silence"])
            let sock = ["--socket", h.socketPath]
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000")
            try h.waitFor("ringing at the agent") { try CallControlTests.statusCall(h, ring.callId) != nil }
            var outputs = [("calls", try h.cli(["calls"] + sock).output), ("status", try h.cli(["status"] + sock).output)]
            if !outputs[0].1.contains("Door\\x1b]52;c;") { problems.add("calls does not show the name escaped: \(outputs[0].1)") }
            let declined = try h.cli(["decline", ring.callId] + sock)
            if declined.code != 0 { problems.add("decline of \(ring.callId.debugDescription) failed: \(declined.output)") }
            _ = try CallControlTests.waitForRecord(h, ring.callId)
            outputs.append(("decline", declined.output))
            outputs.append(("history", try h.cli(["history", "--state-dir", h.stateDir]).output))
            outputs.append(("log", h.log()))
            for (surface, text) in outputs where !UntrustedTextSurfaceTests.rawAttack(in: text).isEmpty {
                problems.add("\(surface) shows \(UntrustedTextSurfaceTests.rawAttack(in: text)) raw")
            }
            return problems.violations
        }
        #expect(violations.isEmpty, "\(variant.name): \(violations.joined(separator: "; "))")
    }
}
