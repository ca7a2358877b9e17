import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// Every finished call leaves one record with the right end result; `history` prints them.
@Suite(.serialized) struct CallRecordIntegrationTests {
    typealias Kit = CallControlTests

    @Test func declinedCanceledNoAnswerBusyAndCanceledOutgoing() async throws {
        try await onThread {
            let h = try AgentHarness()
            let config = h.scratch.file("agent.conf")
            try "[calls]\nring_timeout = 2\n".write(toFile: config, atomically: true, encoding: .utf8)
            try h.start(extra: ["--config", config])
            let sock = ["--socket", h.socketPath]

            let declined = try h.emulator.control.ring(login: AgentHarness.login, caller: "2001", displayName: "Dee")
            try h.waitFor("ringing") { try Kit.statusCall(h, declined.callId) != nil }
            #expect(try h.cli(["decline", declined.callId] + sock).code == 0)
            let d = try Kit.waitForRecord(h, declined.callId)
            #expect(d.endResult == .declined && d.displayName == "Dee" && d.caller == "2001" && d.duration == 0)

            let canceled = try h.emulator.control.ring(login: AgentHarness.login, caller: "2002")
            try h.waitFor("ringing") { try Kit.statusCall(h, canceled.callId) != nil }
            try h.emulator.control.hangup(callId: canceled.callId)
            #expect(try Kit.waitForRecord(h, canceled.callId).endResult == .canceled)

            let missed = try h.emulator.control.ring(login: AgentHarness.login, caller: "2003", ringTimeout: 2)
            let m = try Kit.waitForRecord(h, missed.callId)
            #expect(try h.emulator.control.call(missed.callId)?.endReason == "missed")
            #expect(m.endResult == .noAnswer)

            try h.emulator.control.setCallee("3002", behavior: "busy", delay: 0)
            let busy = try JSONValue.parse(try h.cli(["call", "3002", "--json"] + sock).output)["call_id"]?.stringValue
            let b = try Kit.waitForRecord(h, try #require(busy))
            #expect(b.endResult == .busy && b.direction == "outgoing" && b.callee == "3002")

            try h.emulator.control.setCallee("3003", behavior: "noanswer")
            let out = try #require(try JSONValue.parse(try h.cli(["call", "3003", "--json"] + sock).output)["call_id"]?.stringValue)
            try h.waitFor("outgoing rings") { try h.emulator.control.call(out)?.state == "ringing" }
            #expect(try h.cli(["hangup", out] + sock).code == 0)
            #expect(try Kit.waitForRecord(h, out).endResult == .canceled)

            // history: a table, JSON lines, --limit.
            let table = try h.cli(["history", "--state-dir", h.stateDir])
            #expect(table.code == 0)
            for word in ["declined", "canceled", "no_answer", "busy", "Dee <2001>"] { #expect(table.output.contains(word), "\(table.output)") }
            let json = try h.cli(["history", "--json", "--limit", "2", "--state-dir", h.stateDir])
            let lines = json.output.split(separator: "\n")
            #expect(json.code == 0 && lines.count == 2)
            #expect(try JSONValue.parse(String(lines[1]))["end_result"] == "canceled")
            #expect(try h.cli(["history", "--limit", "0", "--state-dir", h.stateDir]).code == 2)
            #expect(try h.cli(["history", "--state-dir", h.scratch.file("nothing-here")]).output.contains("no calls recorded"))
        }
    }

    @Test func aMediaFailureIsRecordedAsFailed() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: Kit.audioFlags(h))
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", fault: "fingerprint")
            let record = try Kit.waitForRecord(h, ring.callId, timeout: 40)
            #expect(record.endResult == .failed)
            #expect(record.info?.contains("fingerprint") == true, "\(record.info ?? "nil")")
        }
    }

    @Test func recordsSurviveSIGKILLWithoutATornLine() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let sock = ["--socket", h.socketPath]
            var ids: [String] = []
            for n in 0..<3 {
                let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "20\(n)0")
                try h.waitFor("ringing") { try Kit.statusCall(h, ring.callId) != nil }
                #expect(try h.cli(["decline", ring.callId] + sock).code == 0)
                _ = try Kit.waitForRecord(h, ring.callId)
                ids.append(ring.callId)
            }
            #expect(h.stop(signal: SIGKILL) != nil)
            let contents = try AppendOnlyLog(path: CallRecordStore(directory: h.stateDir).path).read(CallRecord.self)
            #expect(contents.tornTailBytes == 0 && contents.invalidLines.isEmpty)
            #expect(contents.records.map(\.callId) == ids)
            #expect(try h.cli(["history", "--state-dir", h.stateDir]).output.split(separator: "\n").count == 4)
        }
    }
    @Test func aCallLostWithTheServerSessionIsRecordedAsConnectionLost() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: Kit.audioFlags(h))
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000")
            try h.waitFor("answered") { try h.emulator.control.call(ring.callId)?.state == "established" }
            let token = try #require(try h.storedToken()["token"]?.stringValue)
            try h.emulator.control.cut(login: AgentHarness.login)
            try h.emulator.control.expireToken(token: token)
            let record = try Kit.waitForRecord(h, ring.callId, timeout: 30)
            #expect(record.endResult == .connectionLost && record.answered != nil)
            try h.waitFor("online again") { try h.status()["state"] == "online" }
            #expect(try h.status()["calls"]?.arrayValue?.isEmpty == true)
        }
    }
}
