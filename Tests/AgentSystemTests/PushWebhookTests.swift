import Foundation
import Testing
import TestSupport
import WCSSession

/// The `[push] listen` webhook of the real daemon, spoken to with curl on 127.0.0.1.
@Suite(.serialized) struct PushWebhookTests {
    static let secret = "push-Secret-4471"

    /// Starts the agent with a webhook on 127.0.0.1 (a free port) and returns its URL.
    static func startWithWebhook(_ h: AgentHarness) throws -> String {
        let secretFile = h.scratch.file("push-secret")
        _ = FileManager.default.createFile(atPath: secretFile, contents: Data((secret + "\n").utf8),
                                           attributes: [.posixPermissions: 0o600])
        let config = h.scratch.file("push.conf")
        try "[push]\nlisten = 127.0.0.1:0\nsecret_file = \(secretFile)\n".write(toFile: config, atomically: true, encoding: .utf8)
        try h.start(extra: ["--config", config])
        var url: String?
        try h.waitFor("webhook address in the log") {
            url = h.log().split(separator: "\n").lazy.compactMap { line -> String? in
                guard let r = line.range(of: "push webhook listening on ") else { return nil }
                return String(line[r.upperBound...]).trimmingCharacters(in: .whitespaces)
            }.first
            return url != nil
        }
        return try #require(url)
    }

    /// POSTs (or `method`s) `body` with curl; returns the HTTP status and the answer body.
    static func post(_ url: String, body: String, secret: String?, method: String = "POST") throws -> (status: Int, body: String) {
        var args = ["-s", "-X", method, "-H", "Content-Type: application/json", "--data-binary", body, "-w", "\n%{http_code}", url]
        if let secret { args += ["-H", "X-WCS-Push-Secret: \(secret)"] }
        let result = try run("/usr/bin/curl", args)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? -1, lines.dropLast().joined(separator: "\n"))
    }

    @Test func aGoodSecretWakesTheAgentAndTheCallRings() async throws {
        try await onThread {
            let h = try AgentHarness()
            let url = try Self.startWithWebhook(h)
            #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/push"))
            try h.sleepAgent()
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2010")
            let answer = try Self.post(url, body: try h.pushPayload(for: ring.callId), secret: Self.secret)
            #expect(answer.status == 200, "\(answer)")
            let reply = try JSONValue.parse(answer.body)
            #expect(reply["push"] == "ringing")
            #expect(reply["state"] == "online")
            #expect(reply["call_id"]?.stringValue == ring.callId)
            #expect(try h.statusCallIds().contains(ring.callId))
            let again = try Self.post(url, body: try h.pushPayload(for: ring.callId), secret: Self.secret)
            #expect(try JSONValue.parse(again.body)["push"] == "duplicate")
            #expect(!h.log().contains(Self.secret), "the secret is never logged")
        }
    }

    @Test func badRequestsChangeNothing() async throws {
        try await onThread {
            let h = try AgentHarness()
            let url = try Self.startWithWebhook(h)
            try h.sleepAgent()
            let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: "2011")
            let payload = try h.pushPayload(for: ring.callId)
            let frames = try h.connectionFrames()
            #expect(try Self.post(url, body: payload, secret: "wrong").status == 401)
            #expect(try Self.post(url, body: payload, secret: Self.secret + "x").status == 401)
            #expect(try Self.post(url, body: payload, secret: nil).status == 401)
            #expect(try Self.post(url, body: payload, secret: "").status == 401)
            let malformed = try Self.post(url, body: "{\"uuid\": 1", secret: Self.secret)
            #expect(malformed.status == 400)
            #expect(malformed.body.contains("not valid JSON"))
            #expect(try Self.post(url, body: "{\"handle\":\"2011\"}", secret: Self.secret).status == 400)
            let big = "{\"id\":\"" + String(repeating: "x", count: 20_000) + "\"}"
            #expect(try Self.post(url, body: big, secret: Self.secret).status == 413)
            #expect(try Self.post(url, body: payload, secret: Self.secret, method: "PUT").status == 405)
            #expect(try Self.post(url.replacingOccurrences(of: "/push", with: "/other"), body: payload, secret: Self.secret).status == 404)
            // Nothing happened: no connection frame at the emulator, still asleep, no record.
            #expect(try h.connectionFrames() == frames)
            #expect(try h.status()["state"] == "asleep")
            #expect(h.callRecords().isEmpty)
            #expect(!h.log().contains(Self.secret))
            // And the good push still works afterwards.
            let good = try Self.post(url, body: payload, secret: Self.secret)
            #expect(good.status == 200 && (try? JSONValue.parse(good.body))?["push"] == "ringing")
        }
    }

    @Test func aListenAddressWithoutASecretIsAConfigError() async throws {
        try await onThread {
            let h = try AgentHarness()
            let config = h.scratch.file("nosecret.conf")
            try "[push]\nlisten = 127.0.0.1:0\n".write(toFile: config, atomically: true, encoding: .utf8)
            let result = try run(AgentHarness.binary, ["run", "--config", config, "--server", h.emulator.url,
                                                       "--state-dir", h.stateDir, "--socket", h.socketPath])
            #expect(result.status != 0)
            #expect(result.output.contains("[push] listen needs secret_file"))
        }
    }
}
