import Foundation
import Testing
import TestSupport
@testable import WCSSession

/// `resume(token:loginIfRefused:)` against the emulator: a refused token without the login (the
/// agent logs in after its reconnect spread), and a server's "try again later" (1013) that is
/// pushback, not a refusal: no second socket, and the token still resumes later.
@Suite(.serialized) struct ResumePushbackTests {
    static let login = "1001"
    static let password = "s3cret-pass"

    static func configuration(_ emulator: EmulatorProcess) -> WCSSessionConfiguration {
        var c = WCSSessionConfiguration(url: emulator.url)
        c.credentials = SIPCredentials(login: login, password: Secret(password), domain: "pbx.test")
        c.connectTimeout = 5
        return c
    }

    @Test func aRefusedTokenWithoutLoginIfRefusedMakesNoLogin() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        let session = WCSSession(configuration: Self.configuration(emulator))
        let outcome = await session.resume(token: Secret("no-such-token"), loginIfRefused: false)
        guard case .failed(let error) = outcome else { Issue.record("outcome \(outcome)"); return }
        #expect(error.kind == .loginDeferred)
        #expect(try emulator.control.sessions().isEmpty)
        let kinds = try emulator.control.get("/attempts")["by_kind"]
        #expect(kinds == ["token_refused": 1])
    }

    @Test func tryAgainLaterIsPushbackNotARefusedToken() async throws {
        let emulator = try EmulatorProcess(users: [Self.login: Self.password])
        let session = WCSSession(configuration: Self.configuration(emulator))
        guard case .registered(let info) = try await session.login() else { Issue.record("no login"); return }
        await session.disconnect()
        // One new socket per second: the resume right after the login is refused with 1013.
        _ = try emulator.control.setConfig(["max_connections_per_second": 1])
        let outcome = await session.resume(token: info.token)
        guard case .failed(let error) = outcome else { Issue.record("outcome \(outcome)"); return }
        #expect(error.kind == .tryLater)
        let log = try emulator.control.get("/attempts")
        #expect(log["total"] == 2 && log["refused"] == 1, "no login after the 1013: \(log)")
        // The server kept the session: once it admits us again, the same token resumes it.
        try await Task.sleep(for: .seconds(1.1))
        #expect(await session.resume(token: info.token) == .resumed(info))
    }
}
