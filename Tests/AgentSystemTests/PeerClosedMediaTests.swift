import AudioPipe
import Foundation
import Synchronization
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// Issue 8: a far end's DTLS close_notify ends the call. The far end is a real `CallMedia` in this
/// process, rung in as the emulator's external media leg (`POST /ring {"offer_sdp"}`), so ICE, DTLS
/// and SRTP run straight between it and the real agent binary, and the test decides when the far
/// end closes its media without the server knowing.
@Suite(.serialized) struct PeerClosedMediaTests {
    /// Runs `work` to completion from the dedicated test thread (the cooperative pool stays free).
    static func wait<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, any Error>?>(nil)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// The agent answers an external leg whose far end is `far`; returns the call id once media flows.
    static func connect(_ h: AgentHarness, _ far: CallMedia) throws -> String {
        let offer = try wait { try await far.makeOffer() }
        let ring = try h.emulator.control.post("/ring", ["login": .string(AgentHarness.login), "caller": "2000",
                                                         "offer_sdp": .string(offer)])
        let callId = try #require(ring["callId"]?.stringValue, "\(ring)")
        var answer: String?
        try h.waitFor("the agent's answer", timeout: 20) {
            answer = try h.emulator.control.get("/calls?callId=\(callId)")[0]?["answer_sdp"]?.stringValue
            return answer != nil
        }
        let sdp = try #require(answer)
        try wait { try await far.applyAnswer(sdp) }
        try h.waitFor("media from the agent", timeout: 20) { far.statistics().packetsReceived > 25 }
        return callId
    }

    /// Hangups the agent sent for `callId`.
    static func hangups(_ h: AgentHarness, _ callId: String) throws -> Int {
        try h.emulator.control.frames(message: "hangup", direction: "in")
            .filter { $0["data"]?["callId"]?.stringValue == callId }.count
    }

    static func farEnd() -> CallMedia {
        var configuration = CallMediaConfiguration(ice: ICEConfiguration(controlling: true, localAddresses: ["127.0.0.1"]))
        configuration.codecs = [.opus]
        return CallMedia(configuration: configuration, source: ToneSource(frequency: 440), sink: NullSink())
    }

    @Test func aFarEndThatClosesItsMediaIsHungUpAfterTheGrace() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: AgentAudioTests.audioFlags(h))
            let far = Self.farEnd()
            let callId = try Self.connect(h, far)
            let closed = Date()
            far.close()  // RTCP BYE, then close_notify; the server is not told
            let record = try CallControlTests.waitForRecord(h, callId, timeout: 20)
            let elapsed = Date().timeIntervalSince(closed)
            #expect(elapsed >= CallManager.peerClosedGrace - 0.2 && elapsed < 10, "ended \(elapsed) s after the close")
            #expect(record.endResult == .completed, "\(record)")
            #expect(try Self.hangups(h, callId) == 1)
            #expect(try CallControlTests.statusCall(h, callId) == nil)
        }
    }

    @Test func aServerThatEndsTheCallWithinTheGraceIsNotHungUpOnAgain() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc)
            try h.start(extra: AgentAudioTests.audioFlags(h))
            let far = Self.farEnd()
            let callId = try Self.connect(h, far)
            far.close()
            try h.emulator.control.hangup(callId: callId)  // the SIP BYE, right behind the close
            let record = try CallControlTests.waitForRecord(h, callId, timeout: 20)
            #expect(record.endResult == .completed, "\(record)")
            Thread.sleep(forTimeInterval: CallManager.peerClosedGrace + 0.5)
            #expect(try Self.hangups(h, callId) == 0)
        }
    }
}
