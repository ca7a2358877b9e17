import Foundation
import Testing
import TestSupport
@testable import AgentCore

/// Issue 8: a call that is up when the agent is killed gets its own record at the next start. The
/// real daemon answers a call, is SIGKILLed mid-call, and is started again on the same state dir.
@Suite(.serialized) struct InterruptedCallRecoveryTests {
    @Test func aCallUpWhenTheAgentIsKilledIsRecordedAtTheNextStart() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: CallControlTests.audioFlags(h))
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", displayName: "Alice", source: "tone:440")
            try h.waitFor("answered", timeout: 25) { try h.emulator.control.call(ring.callId)?.state == "established" }
            let openFiles = { (try? FileManager.default.contentsOfDirectory(atPath: h.stateDir))?.filter { $0.hasPrefix("calls-open-") } ?? [] }
            try h.waitFor("the open-calls file names the answered call") {
                try openFiles().contains { name in
                    let text = try String(contentsOfFile: h.stateDir + "/" + name, encoding: .utf8)
                    return text.contains(ring.callId) && text.contains("\"answered\"")
                }
            }
            let killedAt = Date()
            #expect(h.stop(signal: SIGKILL) != nil)
            #expect(try CallControlTests.records(h).isEmpty, "no record before the restart")

            try h.start()
            let record = try CallControlTests.waitForRecord(h, ring.callId, timeout: 10)
            #expect(record.endResult == .interrupted)
            #expect(record.direction == "incoming" && record.caller == "2000" && record.displayName == "Alice")
            #expect(record.answered != nil && record.ended <= killedAt && record.ended >= record.started)
            #expect(openFiles().isEmpty, "the dead run's open-calls file is gone")
            // A second restart does not record the call again.
            #expect(h.stop() == 0)
            try h.start()
            #expect(try CallControlTests.records(h).filter { $0.callId == ring.callId }.count == 1)
        }
    }

    @Test func aCleanRunLeavesNoOpenCallsFileAndOneRecordPerCall() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: CallControlTests.audioFlags(h))
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2001", source: "tone:440")
            try h.waitFor("answered", timeout: 25) { try h.emulator.control.call(ring.callId)?.state == "established" }
            try h.emulator.control.hangup(callId: ring.callId)
            let record = try CallControlTests.waitForRecord(h, ring.callId)
            #expect(record.endResult == .completed)
            try h.waitFor("open-calls file removed") {
                ((try? FileManager.default.contentsOfDirectory(atPath: h.stateDir)) ?? []).allSatisfy { !$0.hasPrefix("calls-open-") }
            }
            #expect(h.stop(signal: SIGKILL) != nil)
            try h.start()
            Thread.sleep(forTimeInterval: 0.5)
            #expect(try CallControlTests.records(h).map(\.callId) == [ring.callId], "nothing recorded again")
        }
    }
}
