import Foundation
import Testing
import TestSupport
@testable import WCSSession

/// The incoming-call event carries the offer; a spoiled or missing offer arrives as nil, and a late
/// `setRemoteSDP` for an announced call comes as `.remoteSDP`. Against the WCS emulator.
@Suite(.serialized) struct SessionOfferTests {
    static func loggedIn() async throws -> (EmulatorProcess, WCSSession, SessionEventRecorder) {
        let emulator = try EmulatorProcess(users: [SessionIntegrationTests.login: SessionIntegrationTests.password])
        let session = WCSSession(configuration: SessionIntegrationTests.configuration(emulator))
        let recorder = SessionEventRecorder(session)
        _ = try await session.login()
        return (emulator, session, recorder)
    }

    static func offer(of callId: String, in recorder: SessionEventRecorder) async -> String?? {
        await recorder.first { event -> String?? in
            if case .incomingCall(let call, let offer, _) = event, call.callId == callId { return .some(offer) }
            return nil
        }
    }

    @Test func theIncomingCallEventCarriesTheOffer() async throws {
        let (emulator, session, recorder) = try await Self.loggedIn()
        let ring = try emulator.control.ring(login: SessionIntegrationTests.login, caller: "2000")
        let carried = try #require(await Self.offer(of: ring.callId, in: recorder))
        #expect(carried?.hasPrefix("v=0") == true)
        #expect(carried == (try emulator.control.call(ring.callId)?.offerSdp))
        await session.disconnect()
    }

    @Test(arguments: ["none", "null", "object", "non_utf8", "deep"])
    func aSpoiledOfferArrivesAsNoOffer(_ fault: String) async throws {
        let (emulator, session, recorder) = try await Self.loggedIn()
        let ring = try emulator.control.ring(login: SessionIntegrationTests.login, caller: "2000", offer: fault)
        let carried = try #require(await Self.offer(of: ring.callId, in: recorder))
        #expect(carried == nil, "offer \(fault)")
        #expect(await session.state == .registered, "the socket stays up")
        await session.disconnect()
    }

    @Test func aLateOfferForAnAnnouncedCallArrivesAsRemoteSDP() async throws {
        let (emulator, session, recorder) = try await Self.loggedIn()
        let ring = try emulator.control.ring(login: SessionIntegrationTests.login, caller: "2000", offer: "none")
        _ = try #require(await Self.offer(of: ring.callId, in: recorder))
        try emulator.control.sendFrame("setRemoteSDP", data: [.string(ring.callId), .string(SampleSDP.offer)])
        let late = await recorder.first { event -> String? in
            if case .remoteSDP(let id, let sdp) = event, id == ring.callId { return sdp }
            return nil
        }
        #expect(late == SampleSDP.offer)
        await session.disconnect()
    }
}
