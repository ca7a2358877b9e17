import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// Issue 19, invariant (c), at the push reply: it says what happened to that call. A pushed call that
/// comes back without a usable offer can never be answered: it is not rung (no `incoming_call`), the
/// reply says `ended`, not `ringing`, and the record says `failed`, once.
@Suite(.serialized) struct PushReplyTruthTests {
    @Test func aPushedCallThatCanNeverBeAnsweredIsNotReportedRinging() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start(extra: ["--answer", "manual", "--audio-source", "silence", "--audio-sink", "null"])
            let tap = try PushEventTap(h)
            try h.sleepAgent()
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2004", offer: "none", noFinish: true)
            let reply = try h.reconnect(payload: try h.pushPayload(for: ring.callId))
            #expect(reply.reply?["push"] == "ended", "\(String(describing: reply.reply))")
            #expect(reply.reply?["state"] == "online")
            let record = try CallControlTests.waitForRecord(h, ring.callId)
            #expect(record.endResult == .failed)
            tap.drain(seconds: 0.5)
            #expect(!tap.events.contains { $0["type"] == "incoming_call" && $0["call_id"]?.stringValue == ring.callId },
                    "a call without an offer rang")
            #expect(h.callRecords().filter { $0["call_id"]?.stringValue == ring.callId }.count == 1)
        }
    }

    /// The ordinary case stays `ringing`: the call rings and can be answered.
    @Test func aPushedCallThatRingsIsReportedRinging() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start(extra: ["--answer", "manual"])
            try h.sleepAgent()
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2005")
            let reply = try h.reconnect(payload: try h.pushPayload(for: ring.callId))
            #expect(reply.reply?["push"] == "ringing")
            #expect(try CallControlTests.statusCall(h, ring.callId)?["state"] == "ringing")
        }
    }
}
