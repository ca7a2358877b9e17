import Foundation
import Testing
import TestSupport
@testable import WCSSession

/// What goes over the wire in a session's life, pinned frame by frame against the emulator's frame
/// log (`GET /frames`), as docs/wcs-protocol.md describes it.
extension SessionIntegrationTests {
    /// The names of frames on the emulator's socket number `conn`, in order, pings and pongs left out.
    static func frameNames(_ emulator: EmulatorProcess, conn: Int, direction: String) throws -> [String] {
        try emulator.control.frames(direction: direction)
            .filter { $0["conn"]?.intValue == conn }
            .compactMap { $0["message"]?.stringValue }
            .filter { $0 != "ping" && $0 != "pong" }
    }

    /// The emulator's socket number of the latest client `connection` frame.
    static func latestConnectionSocket(_ emulator: EmulatorProcess) throws -> Int {
        try #require(try emulator.control.frames(message: "connection", direction: "in").last?["conn"]?.intValue)
    }

    /// Sends `sendData` and waits for its reply: every frame the server sent before that reply
    /// (say, in answer to a resume) is in the frame log by then.
    static func markTheEndOfWhatCameBefore(_ session: WCSSession, _ recorder: SessionEventRecorder) async throws {
        let id = try await session.sendData(["mark": "end"])
        _ = await recorder.first { e -> Bool? in if case .dataStatus(id, _, _) = e { true } else { nil } }
    }

    @Test func theSessionStaysUpThroughManyPingsOfAStrictServer() async throws {
        // The server closes the socket after 2 unanswered pings, and pings every 50 ms.
        let emulator = try EmulatorProcess(users: [Self.login: Self.password],
                                           arguments: ["--ping-interval", "0.05", "--missed-pongs", "2"])
        let session = WCSSession(configuration: Self.configuration(emulator))
        let recorder = SessionEventRecorder(session)
        _ = try await session.login()
        let pings = { try emulator.control.frames(message: "ping", direction: "out").count }
        try await waitUntil(timeout: 20) { try pings() >= 40 }
        #expect(try pings() >= 40)
        #expect(recorder.all.compactMap(\.disconnectReason).isEmpty, "the server never gave up on us")
        #expect(try emulator.control.sessions().map(\.connected) == [true])
        #expect(try emulator.control.frames(message: "connection", direction: "in").count == 1)
        let pongs = try emulator.control.frames(message: "pong", direction: "in").count
        #expect(pongs >= 38, "every ping but the last in flight is answered: \(pongs) pongs")
        #expect(await session.state == .registered)
        await session.disconnect()
    }

    @Test func aResumeProducesGetUserDataAndNothingElse() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        let session = WCSSession(configuration: Self.configuration(emulator))
        let recorder = SessionEventRecorder(session)
        let info = try await session.login().session
        let login = try Self.latestConnectionSocket(emulator)
        #expect(try Self.frameNames(emulator, conn: login, direction: "out") == ["getUserData", "registered"])
        await session.disconnect()
        try await waitUntil { try emulator.control.sessions().first?.connected == false }

        #expect(await session.resume(token: info.token) == .resumed(info))
        try await Self.markTheEndOfWhatCameBefore(session, recorder)
        let resumed = try Self.latestConnectionSocket(emulator)
        #expect(resumed != login)
        // docs/wcs-protocol.md §4.1: getUserData with the same token, and no second `registered`.
        #expect(try Self.frameNames(emulator, conn: resumed, direction: "out") == ["getUserData", "DataStatusEvent"])
        #expect(try Self.frameNames(emulator, conn: resumed, direction: "in") == ["connection", "sendData"])
        let connection = try #require(try emulator.control.frames(message: "connection", direction: "in").last?["data"])
        #expect(connection["authToken"] == "***")
        for field in ["sipLogin", "sipPassword", "sipAuthenticationName", "sipRegisterRequired"] {
            #expect(connection[field] == nil, "a resume sends no SIP fields, but \(field) was sent")
        }
    }
}
