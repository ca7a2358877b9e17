import Foundation
import Testing
import TestSupport
import WCSSession

/// examples/push end to end: the emulator's push goes through a real transport (the webhook
/// sender, an MQTT broker, an ntfy-style stream) into the example script, which wakes the agent.
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

    @Test func mqttSubscriptionWakesTheAgent() async throws {
        try await onThread {
            #expect(FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto"), "apt-get install mosquitto mosquitto-clients (make deps)")
            let h = try AgentHarness()
            try h.start()
            let port = try PushPaths.freePort()
            let brokerLog = h.scratch.file("mosquitto.log")
            let conf = h.scratch.file("mosquitto.conf")
            // As root, mosquitto switches to the user "mosquitto" unless told to stay who we are.
            let user = getpwuid(getuid()).flatMap { String(validatingCString: $0.pointee.pw_name) } ?? "root"
            try "user \(user)\nlistener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest file \(brokerLog)\nlog_type all\n"
                .write(toFile: conf, atomically: true, encoding: .utf8)
            let broker = try ChildProcess(executable: "/usr/sbin/mosquitto", arguments: ["-c", conf], stderrPath: h.scratch.file("mosquitto.err"))
            defer { broker.kill() }
            try h.waitFor("the broker listening") { contents(brokerLog)?.contains("Opening ipv4 listen socket on port \(port)") == true }
            let topic = "wcs/push/\(AgentHarness.login)"
            let script = try PushExampleProcess(script: "mqtt-subscribe.sh", environment: [
                "MQTT_HOST": "127.0.0.1", "MQTT_PORT": "\(port)", "MQTT_TOPIC": topic,
                "WCS_AGENT": AgentHarness.binary, "WCS_AGENT_SOCKET": h.socketPath,
            ], stderrPath: h.scratch.file("mqtt-subscribe.err"))
            try h.waitFor("the example subscribed") { contents(brokerLog)?.contains("Received SUBSCRIBE") == true }
            try h.setPushCommand("/usr/bin/mosquitto_pub -h 127.0.0.1 -p \(port) -q 1 -t '\(topic)' -s")
            let callId = try Self.ringWhileAsleepAndExpectTheWake(h, caller: "2021")
            let line = try script.readLine()
            #expect(line.contains("push for call \(callId): ringing"), "\(line)")
            // The same push again over MQTT: a duplicate, no second wake.
            let frames = try h.connectionFrames()
            let payload = try h.pushPayload(for: callId)
            let published = try run("/bin/sh", ["-c", "printf '%s' '\(payload)' | /usr/bin/mosquitto_pub -h 127.0.0.1 -p \(port) -q 1 -t '\(topic)' -s"])
            #expect(published.status == 0, "\(published.output)")
            #expect(try script.readLine().contains("duplicate"))
            #expect(try h.connectionFrames() == frames)
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
            let script = try PushExampleProcess(script: "ntfy-subscribe.sh", environment: [
                "NTFY_URL": "http://127.0.0.1:\(port)", "NTFY_TOPIC": topic,
                "WCS_AGENT": AgentHarness.binary, "WCS_AGENT_SOCKET": h.socketPath,
            ], stderrPath: h.scratch.file("ntfy-subscribe.err"))
            try h.waitFor("the example subscribed") {
                let health = try run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(port)/health"])
                return try JSONValue.parse(health.output)["subscribers"]?[topic]?.intValue == 1
            }
            try h.emulator.control.post("/config", ["push_url": .string("http://127.0.0.1:\(port)/\(topic)")])
            let callId = try Self.ringWhileAsleepAndExpectTheWake(h, caller: "2022")
            let line = try script.readLine()
            #expect(line.contains("push for call \(callId): ringing"), "\(line)")
        }
    }
}
