import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// Call control verbs, several calls and busy rejection, through the real binary and the emulator.
@Suite(.serialized) struct CallControlTests {
    static func audioFlags(_ h: AgentHarness, answer: String = "auto") -> [String] {
        ["--answer", answer, "--audio-source", "tone:880", "--audio-sink", "record:\(h.scratch.file("recordings"))",
         "--media-address", "127.0.0.1"]
    }

    /// The call journal as the agent wrote it.
    static func records(_ h: AgentHarness) throws -> [CallRecord] {
        try CallRecordStore(directory: h.stateDir).read()
    }

    static func waitForRecord(_ h: AgentHarness, _ callId: String, timeout: Double = 20) throws -> CallRecord {
        try h.waitFor("record of \(callId)", timeout: timeout) { try records(h).contains { $0.callId == callId } }
        return try #require(try records(h).first { $0.callId == callId })
    }

    static func statusCall(_ h: AgentHarness, _ callId: String) throws -> JSONValue? {
        try h.status()["calls"]?.arrayValue?.first { $0["call_id"]?.stringValue == callId }
    }

    @Test func holdResumeMuteDTMFAndTransfer() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: Self.audioFlags(h))
            let sock = ["--socket", h.socketPath]
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", source: "tone:440")
            let id = ring.callId
            try h.waitFor("media flowing", timeout: 20) { (try h.emulator.control.call(id)?.media?.packetsReceived ?? 0) > 50 }

            #expect(try h.cli(["hold", id] + sock).code == 0)
            try h.waitFor("held at the server") { try h.emulator.control.call(id)?.state == "held" }
            try h.waitFor("held in status") { try Self.statusCall(h, id)?["held"] == true }
            #expect(try Self.statusCall(h, id)?["state"] == "held")  // our CallState, next to the server's status
            #expect(try h.cli(["resume"] + sock).code == 0)
            try h.waitFor("talking again") { try h.emulator.control.call(id)?.state == "established" }
            try h.waitFor("not held in status") { try Self.statusCall(h, id)?["held"] == false }

            #expect(try h.cli(["mute", id] + sock).code == 0)
            #expect(try Self.statusCall(h, id)?["muted"] == true)
            let listed = try h.cli(["calls", "--json"] + sock)
            #expect(listed.code == 0)
            let calls = try JSONValue.parse(listed.output)["calls"]?.arrayValue ?? []
            #expect(calls.count == 1 && calls.first?["muted"] == true && calls.first?["stats"]?["codec"] == "opus")
            #expect(calls.first?["state"] == "established" && calls.first?["status"] == "ESTABLISHED")
            let table = try h.cli(["calls"] + sock).output
            #expect(table.contains("muted"))
            #expect(table.contains("STATE") && table.contains("SERVER") && table.contains(" established "), "\(table)")
            #expect(try h.cli(["unmute", id] + sock).code == 0)
            #expect(try Self.statusCall(h, id)?["muted"] == false)

            let inBand = try h.cli(["dtmf", "12#", "--json"] + sock)
            let via = try JSONValue.parse(inBand.output)["via"]
            #expect(inBand.code == 0 && via == "in_band")
            try h.waitFor("in-band DTMF at the emulator", timeout: 10) { try h.emulator.control.call(id)?.dtmf == "12#" }
            #expect(try h.cli(["dtmf", "5", "--type", "info", "--call", id] + sock).code == 0)
            try h.waitFor("INFO DTMF at the emulator") { try h.emulator.control.call(id)?.dtmf == "12#5" }
            let events = try h.emulator.control.get("/calls?callId=\(id)")[0]?["dtmf_events"]?.arrayValue ?? []
            #expect(events.last?["type"]?.stringValue == "INFO")
            #expect(try h.cli(["dtmf", "x"] + sock).code != 0, "bad digits are refused")

            #expect(try h.cli(["transfer", "3000"] + sock).code == 0)
            try h.waitFor("transferred") { try h.emulator.control.call(id)?.transferStatus == "COMPLETED" }
            let call = try #require(try h.emulator.control.call(id))
            #expect(call.transferTarget == "3000" && call.holdForTransfer)
            let record = try Self.waitForRecord(h, id)
            #expect(record.endResult == .completed && record.answered != nil)
            #expect(record.media?.codec == "opus" && (record.media?.packetsReceived ?? 0) > 50)
            #expect(record.recording?.hasSuffix("\(id).wav") == true)
        }
    }

    @Test func aSecondCallHoldsTheFirstAndAThirdIsDeclinedAsBusy() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: Self.audioFlags(h, answer: "manual"))
            let sock = ["--socket", h.socketPath]
            let events = try ChildProcess(executable: AgentHarness.binary, arguments: ["events", "--json"] + sock,
                                          stderrPath: h.scratch.file("events.err"))
            defer { events.kill() }
            let first = try h.emulator.control.ring(login: AgentHarness.login, caller: "2001")
            try h.waitFor("first rings") { try Self.statusCall(h, first.callId) != nil }
            #expect(try h.cli(["answer", first.callId] + sock).code == 0)
            try h.waitFor("first talking") { try h.emulator.control.call(first.callId)?.state == "established" }

            let second = try h.emulator.control.ring(login: AgentHarness.login, caller: "2002")
            try h.waitFor("second rings") { try Self.statusCall(h, second.callId) != nil }
            #expect(try h.cli(["answer", second.callId] + sock).code == 0)
            try h.waitFor("second talking") { try h.emulator.control.call(second.callId)?.state == "established" }
            try h.waitFor("first held") { try h.emulator.control.call(first.callId)?.state == "held" }

            let third = try h.emulator.control.ring(login: AgentHarness.login, caller: "2003")
            try h.waitFor("third declined") { try h.emulator.control.call(third.callId)?.state == "ended" }
            #expect(try h.emulator.control.call(third.callId)?.endReason == "declined")
            let record = try Self.waitForRecord(h, third.callId)
            #expect(record.endResult == .busy && record.caller == "2003")
            var rejected: JSONValue?
            var seen: [JSONValue] = []
            let deadline = Date().addingTimeInterval(10)
            while rejected == nil, Date() < deadline, let line = try? events.readLine(timeout: 10) {
                let event = try JSONValue.parse(line)
                seen.append(event)
                if event["type"] == "call_rejected" { rejected = event }
            }
            #expect(rejected?["call_id"]?.stringValue == third.callId && rejected?["reason"] == "busy")
            seen.removeAll { $0["type"] != "incoming_call" }
            #expect(!seen.contains { $0["call_id"]?.stringValue == third.callId }, "the busy call rang (issue 19 c)")
            // The two calls go on.
            #expect(try h.emulator.control.call(first.callId)?.state == "held")
            #expect(try h.emulator.control.call(second.callId)?.state == "established")
            try h.emulator.control.hangup(callId: second.callId)
            try h.emulator.control.hangup(callId: first.callId)
            #expect(try Self.waitForRecord(h, first.callId).endResult == .completed)
            #expect(try Self.waitForRecord(h, second.callId).endResult == .completed)
        }
    }
}
