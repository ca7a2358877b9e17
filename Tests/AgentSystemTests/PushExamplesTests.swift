import Foundation
import Testing
import TestSupport
import WCSSession

/// examples/push end to end: the emulator's push goes through a real transport (the webhook
/// sender, an ntfy-style stream) into the example script, which wakes the agent. (MQTT is the
/// daemon's own intake: MQTTPushIntakeTests.)
@Suite(.serialized) struct PushExamplesTests {
    /// Sleeps the agent, rings it, and waits until the call rings at the woken agent.
    static func ringWhileAsleepAndExpectTheWake(_ h: AgentHarness, caller: String) throws -> String {
        try h.sleepAgent()
        let ring = try h.emulator.control.ring(login: AgentHarness.login, caller: caller)
        #expect(ring.pushed)
        try h.waitFor("the pushed call ringing at the woken agent", timeout: 30) {
            try h.status()["state"] == "online" && h.statusCallIds().contains(ring.callId)
        }
        return ring.callId
    }

    @Test func webhookSendScriptWakesTheAgent() async throws {
        try await onThread {
            let h = try AgentHarness()
            let url = try PushWebhookTests.startWithWebhook(h)
            let secretFile = h.scratch.file("push-secret")
            try h.setPushCommand("WCS_PUSH_URL='\(url)' WCS_PUSH_SECRET_FILE='\(secretFile)' '\(PushPaths.example("webhook-send.sh"))'")
            let callId = try Self.ringWhileAsleepAndExpectTheWake(h, caller: "2020")
            let delivery = try #require(try h.emulator.control.pushes().first { $0.id == callId })
            #expect(delivery.id == callId)
            // A wrong secret file: curl fails (401) and nothing wakes.
            let wrong = h.scratch.file("wrong-secret")
            try "nope\n".write(toFile: wrong, atomically: true, encoding: .utf8)
            let result = try run("/bin/sh", ["-c", "printf '{\"id\":\"x-1\"}' | WCS_PUSH_URL='\(url)' WCS_PUSH_SECRET_FILE='\(wrong)' '\(PushPaths.example("webhook-send.sh"))'"])
            #expect(result.status == 22, "\(result.output)")
        }
    }

    @Test func ntfySubscriptionWakesTheAgent() async throws {
        try await onThread {
            let h = try AgentHarness()
            try h.start()
            let server = try ChildProcess(executable: "/usr/bin/python3", arguments: [PushPaths.fixture("ntfy_stream_server.py")],
                                          stderrPath: h.scratch.file("ntfy.err"))
            defer { server.kill() }
            let port = try #require(try JSONValue.parse(server.readLine(timeout: 15))["port"]?.intValue)
            let topic = "wcs-push-\(UUID().uuidString.prefix(8))"
            let environment = ["NTFY_URL": "http://127.0.0.1:\(port)", "NTFY_TOPIC": topic, "NTFY_SINCE_FILE": h.scratch.file("ntfy.since"),
                               "WCS_AGENT": AgentHarness.binary, "WCS_AGENT_SOCKET": h.socketPath]
            func subscribed() throws {
                try h.waitFor("the example subscribed") {
                    let health = try run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(port)/health"])
                    return try JSONValue.parse(health.output)["subscribers"]?[topic]?.intValue == 1
                }
            }
            var script: PushExampleProcess? = try PushExampleProcess(script: "ntfy-subscribe.sh", environment: environment,
                                                                     stderrPath: h.scratch.file("ntfy-subscribe.err"))
            try subscribed()
            try h.emulator.control.post("/config", ["push_url": .string("http://127.0.0.1:\(port)/\(topic)")])
            let callId = try Self.ringWhileAsleepAndExpectTheWake(h, caller: "2022")
            let line = try #require(script).readLine()
            #expect(line.contains("push for call \(callId): ringing"), "\(line)")

            // A push published while the subscriber is down is fetched with since= when it is back.
            try h.waitFor("the last id kept") { contents(h.scratch.file("ntfy.since"))?.isEmpty == false }
            script = nil
            try h.waitFor("the subscriber gone") {
                let health = try run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(port)/health"])
                return try JSONValue.parse(health.output)["subscribers"]?[topic]?.intValue ?? 0 == 0
            }
            let posted = try run("/usr/bin/curl", ["-sS", "-d", #"{"id":"ntfy-while-down-1","handle":"2023"}"#, "http://127.0.0.1:\(port)/\(topic)"])
            #expect(posted.status == 0, "\(posted.output)")
            script = try PushExampleProcess(script: "ntfy-subscribe.sh", environment: environment, stderrPath: h.scratch.file("ntfy-subscribe-2.err"))
            let replayed = try #require(script).readLine()
            #expect(replayed.contains("push for call ntfy-while-down-1: the call ended before the session came back"), "\(replayed)")
        }
    }
}
