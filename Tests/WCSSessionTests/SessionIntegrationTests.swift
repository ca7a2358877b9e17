import Foundation
import Testing
import TestSupport
@testable import WCSSession

/// WCSSession against the WCS emulator (a real WebSocket server, started per test, SIGKILLed after).
@Suite(.serialized) struct SessionIntegrationTests {
    static let login = "1001"
    static let password = "s3cret-pass"

    static func configuration(_ emulator: EmulatorProcess, password: String = password) -> WCSSessionConfiguration {
        var c = WCSSessionConfiguration(url: emulator.url)
        c.credentials = SIPCredentials(login: login, password: Secret(password), domain: "pbx.test")
        c.connectTimeout = 5
        return c
    }

    @Test func loginRegistersAndTheEmulatorSeesOneSession() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        let session = WCSSession(configuration: Self.configuration(emulator))
        let result = try await session.login()
        guard case .registered(let info) = result else { Issue.record("not registered: \(result)"); return }
        let listed = try emulator.control.sessions()
        #expect(listed.count == 1)
        #expect(listed.first?.id == info.sessionId)
        #expect(listed.first?.token == info.token.value)
        #expect(listed.first?.registered == true)
        #expect(await session.state == .registered)
        await session.disconnect()
    }

    @Test func sleepThenResumeComesBackToTheSameServerSession() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        let session = WCSSession(configuration: Self.configuration(emulator))
        let info = try await session.login().session
        await session.disconnect()
        #expect(await session.state == .disconnected)
        try await waitUntil { try emulator.control.sessions().first?.connected == false }
        let outcome = await session.resume(token: info.token)
        #expect(outcome == .resumed(info))
        let listed = try emulator.control.sessions()
        #expect(listed.count == 1)
        #expect(listed.first?.id == info.sessionId && listed.first?.connected == true)
        #expect(await session.state == .registered)
    }

    @Test func expiredTokenLeadsToARelogin() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        let session = WCSSession(configuration: Self.configuration(emulator))
        let old = try await session.login().session
        await session.disconnect()
        try emulator.control.expireToken(token: old.token.value)
        let outcome = await session.resume(token: old.token)
        guard case .reloggedIn(.registered(let fresh), _) = outcome else { Issue.record("outcome \(outcome)"); return }
        #expect(fresh.token != old.token)
        #expect(try emulator.control.sessions().map(\.token) == [fresh.token.value])
    }

    @Test func aServerThatStartsANewSessionForAnUnknownTokenIsNotTrusted() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password], arguments: ["--bad-token", "new-session"])
        let session = WCSSession(configuration: Self.configuration(emulator))
        let outcome = await session.resume(token: Secret("no-such-token"))
        guard case .reloggedIn(.registered(let fresh), _) = outcome else { Issue.record("outcome \(outcome)"); return }
        let registered = try emulator.control.sessions().filter { $0.registered }
        #expect(registered.map(\.token) == [fresh.token.value])
    }

    @Test func resumeWithoutCredentialsReportsTheTokenRejected() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        var config = Self.configuration(emulator)
        config.credentials = nil
        let session = WCSSession(configuration: config)
        let outcome = await session.resume(token: Secret("no-such-token"))
        guard case .failed(let error) = outcome else { Issue.record("outcome \(outcome)"); return }
        #expect(error.kind == .tokenRejected)
    }

    @Test func wrongPasswordIsAClearRegistrationFailure() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        let session = WCSSession(configuration: Self.configuration(emulator, password: "wrong"))
        let recorder = SessionEventRecorder(session)
        let result = try await session.login()
        guard case .registrationFailed(_, let status, _) = result else { Issue.record("result \(result)"); return }
        #expect(status == "AUTHENTICATION_FAIL")
        #expect(await recorder.first { if case .registrationFailed = $0 { true } else { nil } } == true)
        #expect(try emulator.control.sessions().first?.registered == false)
    }

    @Test func unreachableServerFailsFastWithoutLosingAnything() async throws {
        var config = WCSSessionConfiguration(url: "ws://127.0.0.1:1")
        config.credentials = SIPCredentials(login: Self.login, password: Secret(Self.password))
        let session = WCSSession(configuration: config)
        let outcome = await session.resume(token: Secret("kept-token"))
        guard case .failed(let error) = outcome else { Issue.record("outcome \(outcome)"); return }
        #expect(error.kind == .connect)
    }

    @Test func pingSilenceCountsAsALostConnection() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password], arguments: ["--ping-interval", "0.1"])
        var config = Self.configuration(emulator)
        config.receiveProbes = 3
        config.probesInterval = 0.2
        let session = WCSSession(configuration: config)
        let recorder = SessionEventRecorder(session)
        _ = try await session.login()
        try await Task.sleep(for: .seconds(1))
        #expect(recorder.all.compactMap(\.disconnectReason).isEmpty, "pings arrive: no false alarm")
        try emulator.control.stopPinging(login: Self.login)
        let reason = await recorder.first { $0.disconnectReason }
        #expect(reason == .pingTimeout(seconds: 0.6000000000000001) || reason.map { if case .pingTimeout = $0 { true } else { false } } == true)
    }

    @Test func aCutSocketIsReportedAsLost() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        let session = WCSSession(configuration: Self.configuration(emulator))
        let recorder = SessionEventRecorder(session)
        let info = try await session.login().session
        try emulator.control.cut(login: Self.login)
        let reason = await recorder.first { $0.disconnectReason }
        #expect(reason?.isUnexpected == true)
        #expect(await session.resume(token: info.token) == .resumed(info))
    }

    @Test func malformedFramesAreSurvived() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        let session = WCSSession(configuration: Self.configuration(emulator))
        let recorder = SessionEventRecorder(session)
        _ = try await session.login()
        for frame in ["{\"message\":", "[1,2,3]", "{\"message\":\"setRemoteSDP\",\"data\":[42]}", "\u{FEFF}nonsense",
                      "{\"message\":\"notifyIncomingCall\",\"data\":[{}]}", "{\"message\":\"brandNewThing\",\"data\":[{}]}"] {
            try emulator.control.sendMalformed(frame, login: Self.login)
        }
        try emulator.control.sendMalformed("binary junk", binary: true, login: Self.login)
        let warnings = await recorder.first { e -> Int? in
            let n = recorder.all.filter { if case .warning = $0 { true } else { false } }.count
            return n >= 5 ? n : nil
        }
        #expect(warnings != nil)
        let ring = try emulator.control.ring(login: Self.login, caller: "2000", displayName: "Alice")
        let call = await recorder.first { $0.incomingCall }
        #expect(call?.callId == ring.callId)
        #expect(await session.state == .registered)
    }

    @Test func aCallToASleepingSessionIsPushedAndReplayedOnResume() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        let session = WCSSession(configuration: Self.configuration(emulator))
        let recorder = SessionEventRecorder(session)
        let info = try await session.login().session
        await session.disconnect()
        try await waitUntil { try emulator.control.sessions().first?.connected == false }
        let ring = try emulator.control.ring(login: Self.login, caller: "2000", displayName: "Alice")
        try await waitUntil { try !emulator.control.pushes().isEmpty }
        let push = try #require(try emulator.control.pushes().first)
        #expect(push.id == ring.callId && push.handle == "2000")
        let outcome = await session.resume(token: info.token)
        // No settle wait: the replay may come before the outcome (then it lists the call) or after it.
        switch outcome {
        case .resumedWithPendingCall(let back, let calls):
            #expect(back == info)
            #expect(calls.map(\.callId) == [ring.callId])
        case .resumed(let back):
            #expect(back == info)
        default:
            Issue.record("outcome \(outcome)")
            return
        }
        let call = await recorder.first { $0.incomingCall }
        #expect(call?.caller == "2000" && call?.visibleName == "Alice")
        let offer = await session.remoteSDP(for: ring.callId)
        #expect(offer?.hasPrefix("v=0") == true)
        let carried = await recorder.first { $0.incomingOffer }
        #expect(carried == offer, "the incoming-call event carries the offer")
        // docs/wcs-protocol.md §4.1: the resume's getUserData, the replayed call, and no `registered`.
        try await Self.markTheEndOfWhatCameBefore(session, recorder)
        #expect(try Self.frameNames(emulator, conn: try Self.latestConnectionSocket(emulator), direction: "out")
                == ["getUserData", "setRemoteSDP", "notifyIncomingCall", "ring", "DataStatusEvent"])
    }

    @Test func incomingCallAnsweredThenHungUpBySIPSide() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        let session = WCSSession(configuration: Self.configuration(emulator))
        let recorder = SessionEventRecorder(session)
        _ = try await session.login()
        let ring = try emulator.control.ring(login: Self.login, caller: "2000")
        _ = await recorder.first { $0.incomingCall }
        try await session.answer(callId: ring.callId, sdp: SampleSDP.answer)
        #expect(await recorder.first { $0.callStatus(ring.callId, .established) } != nil)
        try emulator.control.hangup(callId: ring.callId)
        #expect(await recorder.first { $0.callStatus(ring.callId, .finish) } != nil)
        #expect(await session.currentCalls().isEmpty)
    }

    @Test func sendDataIsAcknowledgedByTheBackend() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        let session = WCSSession(configuration: Self.configuration(emulator))
        let recorder = SessionEventRecorder(session)
        _ = try await session.login()
        let id = try await session.sendData(["door": "open"])
        let status = await recorder.first { e -> String? in
            if case .dataStatus(id, let status, _) = e { status } else { nil }
        }
        #expect(status == "ACCEPTED")
    }

    @Test func outgoingCallWithHoldDTMFAndHangup() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        let session = WCSSession(configuration: Self.configuration(emulator))
        let recorder = SessionEventRecorder(session)
        _ = try await session.login()
        let callId = try await session.call(callee: "1002", sdp: SampleSDP.offer)
        let answer = await recorder.first { e -> String? in if case .remoteSDP(callId, let sdp) = e { sdp } else { nil } }
        #expect(answer?.hasPrefix("v=0") == true)
        #expect(await recorder.first { $0.callStatus(callId, .established) } != nil)
        try await session.hold(callId: callId)
        #expect(await recorder.first { $0.callStatus(callId, .hold) } != nil)
        try await session.unhold(callId: callId)
        try await session.sendDTMF(callId: callId, digits: "12#")
        await #expect(throws: SessionError.self) { try await session.sendDTMF(callId: callId, digits: "x") }
        try await session.hangup(callId: callId)
        #expect(await recorder.first { $0.callStatus(callId, .finish) } != nil)
        let record = try #require(try emulator.control.call(callId))
        #expect(record.dtmf.contains("12#"))
    }
}

/// Polls `condition` until it holds (at most `timeout` seconds).
func waitUntil(timeout: Double = 10, _ condition: () throws -> Bool) async throws {
    if await eventually(timeout: timeout, interval: 0.02, { () async throws -> Bool in try condition() }) { return }
    Issue.record("condition not met within \(timeout) s")
}
