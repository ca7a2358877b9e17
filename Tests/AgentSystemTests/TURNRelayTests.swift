import Foundation
import Testing
import TestSupport
@testable import AgentCore

/// Calls through a real coturn on loopback: UDP and TCP TURN with long-term credentials (coturn
/// reads them from its credentials file, the agent from `turn_password_file`), and
/// `ice_transport_policy = relay` forcing the media through the relay even though host
/// candidates on loopback would win otherwise. Audio flows both ways; coturn logs the allocation.
@Suite(.serialized) struct TURNRelayTests {
    static let password = "turn-PW-9317"

    static func relayedCall(transport: String) throws {
        let scratch = ScratchDirectory()
        let turn = try CoturnProcess(user: "agent", password: password, scratch: scratch)
        let passwordFile = scratch.write("turn-password", password + "\n", mode: 0o600)
        let config = scratch.write("agent.conf", """
            [media]
            turn = 127.0.0.1:\(turn.port)
            turn_user = agent
            turn_password_file = \(passwordFile)
            turn_transport = \(transport)
            ice_transport_policy = relay

            """)
        let h = try AgentHarness(media: .webrtc)
        try h.start(extra: ["--config", config, "--answer", "auto", "--audio-source", "tone:880", "--audio-sink", "null"])
        let id = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", source: "tone:440").callId
        try h.waitFor("audio at the emulator through the relay", timeout: 30) {
            (try h.emulator.control.call(id)?.media?.packetsReceived ?? 0) > 100
        }
        // A relayed pair has no socket of its own to send on: every packet goes through libnice.
        let stats = try #require(try h.status()["calls"]?[0]?["stats"])
        #expect((stats["packets_sent"]?.intValue ?? 0) > 50 && stats["packets_sent_direct"]?.intValue == 0, "\(stats)")
        #expect(try h.cli(["hangup", "--socket", h.socketPath]).code == 0)
        try h.waitFor("the call record") { try CallRecordStore(directory: h.stateDir).read().contains { $0.callId == id } }
        let record = try #require(try CallRecordStore(directory: h.stateDir).read().first { $0.callId == id })
        #expect((record.media?.packetsReceived ?? 0) > 50, "the agent heard the far end: \(String(describing: record.media))")

        let selected = h.log().split(separator: "\n").filter { $0.contains("selected pair") }
        #expect(!selected.isEmpty && selected.allSatisfy { $0.contains(" relay <-> ") }, "not relayed:\n\(selected.joined(separator: "\n"))")
        let allocations = turn.log().split(separator: "\n").filter { $0.contains("user <agent>: incoming packet ALLOCATE processed, success") }
        #expect(!allocations.isEmpty, "coturn logged no allocation:\n\(turn.log().suffix(2000))")
        #expect(!h.log().contains(password), "the TURN password reached the log")
    }

    @Test func aCallThroughUDPTURN() async throws {
        try await onThread { try Self.relayedCall(transport: "udp") }
    }

    @Test func aCallThroughTCPTURN() async throws {
        try await onThread { try Self.relayedCall(transport: "tcp") }
    }
}

/// `[media] ice_transport_policy`: `all` or `relay`, and `relay` only with a TURN server.
@Suite struct ICETransportPolicyConfigTests {
    static func load(_ media: String) throws -> AgentConfig {
        let scratch = ScratchDirectory()
        let secret = scratch.write("turn-password", "pw\n", mode: 0o600)
        let path = scratch.write("agent.conf", "[server]\nurl = ws://127.0.0.1:1\n[media]\n" + media.replacingOccurrences(of: "SECRET", with: secret))
        return try ConfigLoader.load(arguments: ["--config", path], environment: [:])
    }

    @Test func relayNeedsATurnServerAndOtherValuesAreRefused() throws {
        #expect(try Self.load("").iceTransportPolicy == "all")
        let turn = "turn = 127.0.0.1:3478\nturn_user = a\nturn_password_file = SECRET\n"
        #expect(try Self.load(turn + "ice_transport_policy = RELAY\n").iceTransportPolicy == "relay")
        #expect(throws: ConfigError.self) { try Self.load("ice_transport_policy = relay\n") }
        #expect(throws: ConfigError.self) { try Self.load(turn + "ice_transport_policy = host\n") }
    }
}
