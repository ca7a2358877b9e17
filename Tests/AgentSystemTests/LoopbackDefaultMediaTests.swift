import Foundation
import Testing
import TestSupport
@testable import AgentCore

/// The newcomer's first call: the emulator on loopback, the agent with DEFAULT media settings
/// (no --media-address), and the call still carries audio, because loopback candidates are
/// added when the server is on loopback.
@Suite(.serialized) struct LoopbackDefaultMediaTests {
    @Test func aFirstCallOnLoopbackWorksWithDefaultMediaSettings() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: ["--answer", "auto", "--audio-source", "tone:880"])
            let id = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", source: "tone:440").callId
            try h.waitFor("audio at the emulator", timeout: 25) { (try h.emulator.control.call(id)?.media?.packetsReceived ?? 0) > 50 }
            #expect(try h.cli(["hangup", "--socket", h.socketPath]).code == 0)
            try h.waitFor("the call record") { try CallRecordStore(directory: h.stateDir).read().contains { $0.callId == id } }
            let record = try #require(try CallRecordStore(directory: h.stateDir).read().first { $0.callId == id })
            #expect(record.endResult == .completed && (record.media?.packetsReceived ?? 0) > 50, "\(record)")
        }
    }

    @Test func loopbackServersAreRecognised() {
        for url in ["ws://127.0.0.1:8080", "wss://127.1.2.3", "ws://localhost:8080/x", "ws://[::1]:8080", "wss://LOCALHOST"] {
            #expect(MediaAddresses.serverIsLoopback(url), "\(url)")
        }
        for url in ["wss://wcs.example.com:8443", "ws://192.0.2.1", "ws://[fd00::1]:80", "ws://128.0.0.1", "nonsense"] {
            #expect(!MediaAddresses.serverIsLoopback(url), "\(url)")
        }
    }

    @Test func loopbackIsAddedOnlyWhenNothingIsConfiguredAndTheServerIsLocal() {
        #expect(MediaAddresses.effective(configured: [], server: "wss://wcs.example.com") == [])
        #expect(MediaAddresses.effective(configured: ["192.0.2.9"], server: "ws://127.0.0.1:1") == ["192.0.2.9"])
        let local = MediaAddresses.effective(configured: [], server: "ws://127.0.0.1:1")
        #expect(local.contains("127.0.0.1"), "\(local)")
        let others = MediaAddresses.interfaceAddresses().filter { !$0.loopback }.map(\.address)
        #expect(Set(others).isSubset(of: Set(local)), "every interface address stays: \(others) in \(local)")
        #expect(!local.contains { $0.lowercased().hasPrefix("fe80:") })
    }
}
