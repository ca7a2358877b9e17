import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// `[hooks]`: on_incoming names the caller; failing and hanging hooks never stop a call.
@Suite(.serialized) struct CallHookTests {
    typealias Kit = CallControlTests

    func start(_ h: AgentHarness, hooks: String) throws {
        let config = h.scratch.file("agent.conf")
        try "[hooks]\n\(hooks)\n".write(toFile: config, atomically: true, encoding: .utf8)
        try h.start(extra: ["--config", config] + Kit.audioFlags(h))
    }

    @Test func onIncomingSetsTheDisplayNameAndOnCallEndSeesTheResult() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            let lookup = h.scratch.file("lookup.sh")
            try "#!/bin/sh\n[ \"$WCS_CALLER\" = 2000 ] && echo '  Alice Example  ' && echo ignored\n".write(toFile: lookup, atomically: true, encoding: .utf8)
            chmod(lookup, 0o755)
            let ended = h.scratch.file("ended.env")
            try start(h, hooks: "on_incoming = \(lookup)\non_call_end = env > \(ended)\ntimeout = 5")
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", displayName: "unknown")
            try h.waitFor("display name from the hook") { try Kit.statusCall(h, ring.callId)?["display_name"] == "Alice Example" }
            try h.waitFor("answered") { try h.emulator.control.call(ring.callId)?.state == "established" }
            try h.emulator.control.hangup(callId: ring.callId)
            let record = try Kit.waitForRecord(h, ring.callId)
            #expect(record.displayName == "Alice Example" && record.endResult == .completed)
            try h.waitFor("on_call_end ran") { (contents(ended) ?? "").contains("WCS_END_RESULT=completed") }
            let env = contents(ended) ?? ""
            #expect(env.contains("WCS_CALL_ID=\(ring.callId)") && env.contains("WCS_DIRECTION=incoming"))
            #expect(env.contains("WCS_DISPLAY_NAME=Alice Example") && env.contains("WCS_RECORDING=/"))
            #expect(!env.contains(AgentHarness.password), "no secret reaches a hook")
        }
    }

    @Test func aFailingHookIsLoggedAndTheCallIsAnswered() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try start(h, hooks: "on_incoming = echo nope; exit 1")
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", displayName: "Bob")
            try h.waitFor("answered") { try h.emulator.control.call(ring.callId)?.state == "established" }
            try h.waitFor("failure logged") { h.log().contains("on_incoming for call \(ring.callId) failed (exit status 1)") }
            #expect(try Kit.statusCall(h, ring.callId)?["display_name"] == "Bob")
            try h.emulator.control.hangup(callId: ring.callId)
        }
    }

    @Test func aHangingHookIsKilledAtItsTimeoutAndTheCallIsAnswered() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try start(h, hooks: "on_incoming = sleep 60\ntimeout = 1")
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000")
            try h.waitFor("answered") { try h.emulator.control.call(ring.callId)?.state == "established" }
            try h.waitFor("timeout logged") { h.log().contains("on_incoming for call \(ring.callId) failed (killed at its timeout)") }
            try h.emulator.control.hangup(callId: ring.callId)
            #expect(try Kit.waitForRecord(h, ring.callId).endResult == .completed)
        }
    }
}
