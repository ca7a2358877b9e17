import Foundation
import Testing
import TestSupport
import WCSSession

/// `wcs-agent reconnect --payload` against the real daemon and emulator: wake once per call id,
/// ring a call that is still there, record a call that ended while asleep as missed.
@Suite(.serialized) struct PushIntakeTests {
    @Test func aPushForARingingCallWakesTheAgentAndTheCallRings() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let tap = try PushEventTap(h)
            try h.sleepAgent()
            try tap.waitFor("asleep") { $0["type"] == "state" && $0["state"] == "asleep" }
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2002", displayName: "Carol")
            #expect(ring.pushed)
            let reply = try h.reconnect(payload: try h.pushPayload(for: ring.callId))
            #expect(reply.code == 0)
            #expect(reply.reply?["push"] == "ringing")
            #expect(reply.reply?["call_id"]?.stringValue == ring.callId)
            #expect(reply.reply?["state"] == "online")
            #expect(reply.reply?["outcome"] == "resumed_with_pending_call")
            #expect(try h.statusCallIds().contains(ring.callId))
            let incoming = try tap.waitFor("incoming_call") { $0["type"] == "incoming_call" }
            #expect(incoming["call_id"]?.stringValue == ring.callId)
            #expect(incoming["caller"] == "2002")
            #expect(h.callRecords().isEmpty, "nothing is recorded as missed")
        }
    }

    @Test func theSamePushTwiceWakesOnceAndRingsOnce() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let tap = try PushEventTap(h)
            try h.sleepAgent()
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2003")
            let payload = try h.pushPayload(for: ring.callId)
            #expect(try h.connectionFrames() == 1)
            let first = try h.reconnect(payload: payload)
            #expect(first.reply?["push"] == "ringing")
            #expect(try h.connectionFrames() == 2)
            let second = try h.reconnect(payload: payload)
            #expect(second.code == 0)
            #expect(second.reply?["push"] == "duplicate")
            #expect(second.reply?["outcome"]?.isNull == true, "no wake was tried")
            // Asleep again, the same (late) push still does not wake the agent.
            try h.sleepAgent()
            let late = try h.reconnect(payload: payload)
            #expect(late.code == 0 && late.reply?["push"] == "duplicate")
            #expect(late.reply?["state"] == "asleep")
            #expect(try h.connectionFrames() == 2, "one wake in all")
            tap.drain(seconds: 0.5)
            #expect(tap.events.filter { $0["type"] == "incoming_call" }.count == 1, "rang once")
        }
    }

    @Test func aPushForACallThatEndedWhileAsleepIsRecordedAsMissedAndNotRung() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let tap = try PushEventTap(h)
            try h.sleepAgent()
            try tap.waitFor("asleep") { $0["type"] == "state" && $0["state"] == "asleep" }
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2004", displayName: "Dave")
            let payload = try h.pushPayload(for: ring.callId)
            try h.emulator.control.hangup(callId: ring.callId)
            try h.waitFor("call ended at the emulator") { try h.emulator.control.call(ring.callId)?.state == "ended" }
            let reply = try h.reconnect(payload: payload)
            #expect(reply.code == 0)
            #expect(reply.reply?["push"] == "missed")
            #expect(reply.reply?["state"] == "online", "the session is back")
            let missed = try tap.waitFor("missed_call") { $0["type"] == "missed_call" }
            #expect(missed["call_id"]?.stringValue == ring.callId)
            #expect(missed["caller"] == "2004")
            let records = h.callRecords()
            #expect(records.count == 1)
            let record = try #require(records.first)
            #expect(record["call_id"]?.stringValue == ring.callId)
            #expect(record["end_result"] == "missed_while_asleep")
            #expect(record["caller"] == "2004")
            #expect(record["direction"] == "incoming")
            #expect(try h.statusCallIds().isEmpty)
            tap.drain(seconds: 1)
            #expect(!tap.events.contains { $0["type"] == "incoming_call" }, "never rung")
            // The same push again: duplicate, not a second record.
            #expect(try h.reconnect(payload: payload).reply?["push"] == "duplicate")
            #expect(h.callRecords().count == 1)
        }
    }

    @Test func aMalformedPayloadIsRefusedWithoutWaking() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            try h.sleepAgent()
            let cases: [(String, String)] = [
                ("printf 'not json' |", "not valid JSON"),
                ("printf '[1]' |", "not a JSON object"),
                ("printf '{\"uuid\":\"u\",\"handle\":\"1\"}' |", "no \"id\""),
                ("true |", "empty"),
            ]
            for (input, message) in cases {
                let result = try run("/bin/sh", ["-c", "\(input) '\(AgentHarness.binary)' reconnect --payload - --socket '\(h.socketPath)'"])
                #expect(result.status == 2, "\(input)")
                #expect(result.output.contains(message), "\(input): \(result.output)")
                #expect(result.output.contains("not waking the agent"))
            }
            let missing = try run(AgentHarness.binary, ["reconnect", "--payload", h.scratch.file("nope.json"), "--socket", h.socketPath])
            #expect(missing.status == 2)
            #expect(missing.output.contains("cannot read the push payload"))
            #expect(try h.status()["state"] == "asleep")
            #expect(try h.connectionFrames() == 1, "no wake")
            let misplaced = try run(AgentHarness.binary, ["status", "--payload", "x", "--socket", h.socketPath])
            #expect(misplaced.status == 2)
        }
    }
}
