import Foundation
import Testing
import TestSupport
@testable import WCSSession

/// A refused WebSocket upgrade: the HTTP status and `Retry-After` reach the session's error, from the
/// real transport against the emulator's `upgrade_refuse_next` fault; the header is parsed with care.
@Suite struct UpgradeRefusalTests {
    @Test func retryAfterIsReadAsDeltaSecondsOnly() {
        #expect(UpgradeRefusal.seconds("5") == 5 && UpgradeRefusal.seconds(" 120 ") == 120)
        #expect(UpgradeRefusal.seconds("99999999") == UpgradeRefusal.maximumRetryAfter)
        for bad in ["", "-1", "1.5", "Wed, 21 Oct 2015 07:28:00 GMT", "5s", "\u{1B}[2J", "12345678901"] {
            #expect(UpgradeRefusal.seconds(bad) == nil, "\(bad)")
        }
    }

    @Test func aRefusedUpgradeGivesUnavailableWithTheServersRetryAfter() async throws {
        let emulator = try EmulatorProcess(users: ["1001": "pw-1001"])
        try emulator.control.setFaults(["upgrade_refuse_next": 1, "upgrade_retry_after": 7])
        var c = WCSSessionConfiguration(url: emulator.url)
        c.credentials = SIPCredentials(login: "1001", password: Secret("pw-1001"), domain: "pbx.test")
        c.connectTimeout = 5
        let session = WCSSession(configuration: c)
        do {
            _ = try await session.login()
            Issue.record("the login went through a refused upgrade")
        } catch {
            #expect(error.kind == .unavailable && error.retryAfter == 7, "\(error)")
            #expect(error.message.contains("503"))
        }
        guard case .registered = try await session.login() else { Issue.record("no login after the refusal"); return }
    }
}
