import Foundation
import Synchronization
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// `wcs-agent metrics` and `[metrics] listen`: the exposition is checked by a strict reader of the
/// text format written for these tests, by Prometheus's own `promtool check metrics`, and by a real
/// Prometheus server scraping the daemon on loopback.
@Suite(.serialized) struct MetricsTests {
    /// Runs `promtool check metrics` on `text`: exit code and what it printed.
    static func promtool(_ text: String, scratch: ScratchDirectory) throws -> (code: Int32, output: String) {
        let file = scratch.write("exposition-\(UUID().uuidString).txt", text)
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "promtool check metrics < \"$0\" 2>&1", file])
        let output = child.readToEnd(timeout: 30)
        return (child.waitForExit(timeout: 30) ?? -1, output)
    }

    static func curl(_ url: String) throws -> (code: Int32, output: String) {
        let child = try ChildProcess(executable: "/usr/bin/curl", arguments: ["-sS", "--max-time", "10", "-w", "\n%{http_code}", url])
        let output = child.readToEnd(timeout: 15)
        return (child.waitForExit(timeout: 15) ?? -1, output)
    }

    @Test func theExpositionIsValidAndCountsWhatHappened() throws {
        let now = Mutex(100.0)
        let collector = MetricsCollector { now.withLock { $0 } }
        func at(_ t: Double, _ event: AgentEvent) { now.withLock { $0 = t }; collector.observe(event) }
        at(100, .state("connecting", reason: "start"))
        at(100.3, .loggedIn(sessionId: "s1"))
        at(100.3, .state("online"))
        at(110, .disconnected(reason: "ping timeout"))
        at(110, .state("waiting_to_retry", retryInSeconds: 1))
        at(111, .state("connecting", reason: "retry"))
        at(111.04, .resumed(sessionId: "s1", pendingCalls: nil))
        at(111.04, .state("online"))
        at(120, .state("connecting", reason: "push"))
        at(127, .reloggedIn(sessionId: "s2"))
        at(127, .state("online"))
        let ring = CallDescription(callId: "c1", direction: "incoming", status: "RING", started: nil, caller: "2000")
        at(130, .incomingCall(ring, replayed: false, ringTimeout: 30))
        at(131, .incomingCall(ring, replayed: true, ringTimeout: 30))
        for result in ["completed", "busy", "completed"] {
            at(140, .callEnded(CallEndReport(callId: "c", direction: "incoming", status: "FINISH", declined: false, info: nil, stats: nil,
                                             recording: nil, durationSeconds: nil, endResult: result, displayName: nil)))
        }
        collector.observe(json: TimedAgentEvent(.callRejected(callId: "c9", reason: "busy", caller: nil, maxCalls: 1)).json)

        let odd = "odd\"id\\with\nnewline"
        let stats: JSONValue = .object(["packets_received": 950, "packets_lost": 50, "jitter_ms": 12.5, "rtt_ms": 41.0])
        let talking = CallSummary(call: CallDescription(callId: odd, direction: "outgoing", status: "ESTABLISHED", started: nil),
                                  media: true, held: false, muted: false, durationSeconds: 3, recording: nil, stats: stats)
        let ringing = CallSummary(call: ring, media: false, held: false, muted: false, durationSeconds: nil, recording: nil, stats: nil)
        let text = AgentMetrics.render(MetricsSnapshot(
            counters: collector.counters, state: "online", sessionState: "registered", registered: true, hasToken: true,
            lastPongAgeSeconds: 1.25, tokenAgeSeconds: 40, calls: [talking, ringing], uptimeSeconds: 99.5))

        let parsed = try PrometheusExposition(text)
        #expect(parsed.value("wcs_agent_state", ["state": "online"]) == 1 && parsed.value("wcs_agent_state", ["state": "asleep"]) == 0)
        #expect(parsed.value("wcs_agent_session_state", ["state": "registered"]) == 1)
        #expect(parsed.value("wcs_agent_logins_total") == 1 && parsed.value("wcs_agent_relogins_total") == 1)
        #expect(parsed.value("wcs_agent_resumes_total") == 1 && parsed.value("wcs_agent_disconnects_total") == 1)
        #expect(parsed.value("wcs_agent_last_pong_age_seconds") == 1.25)
        // Three wakes: 0.3 s, 0.04 s, 7 s (the failed attempt before the retry is not a wake).
        #expect(parsed.value("wcs_agent_wake_duration_seconds_count") == 3)
        #expect(parsed.value("wcs_agent_wake_duration_seconds_bucket", ["le": "0.05"]) == 1)
        #expect(parsed.value("wcs_agent_wake_duration_seconds_bucket", ["le": "0.5"]) == 2)
        #expect(parsed.value("wcs_agent_wake_duration_seconds_bucket", ["le": "5"]) == 2)
        #expect(parsed.value("wcs_agent_wake_duration_seconds_bucket", ["le": "10"]) == 3)
        #expect(abs((parsed.value("wcs_agent_wake_duration_seconds_sum") ?? 0) - 7.34) < 1e-6)
        #expect(parsed.value("wcs_agent_incoming_calls_total") == 1)
        #expect(parsed.value("wcs_agent_calls_ended_total", ["result": "completed"]) == 2)
        #expect(parsed.value("wcs_agent_calls_ended_total", ["result": "busy"]) == 1)
        #expect(parsed.value("wcs_agent_calls_ended_total", ["result": "no_answer"]) == 0)
        #expect(parsed.value("wcs_agent_calls_rejected_busy_total") == 1)
        #expect(parsed.value("wcs_agent_calls_active") == 2)
        let call = ["call_id": odd, "direction": "outgoing"]
        #expect(parsed.value("wcs_agent_call_loss_ratio", call) == 0.05)
        #expect(parsed.value("wcs_agent_call_jitter_seconds", call) == 0.0125)
        #expect(parsed.value("wcs_agent_call_rtt_seconds", call) == 0.041)
        #expect(parsed.value("wcs_agent_call_packets_lost_total", call) == 50)
        #expect(!parsed.samples.contains { $0.labels["call_id"] == "c1" }, "a call without media has no media series")

        let scratch = ScratchDirectory()
        let lint = try Self.promtool(text, scratch: scratch)
        #expect(lint.code == 0 && lint.output.isEmpty, "promtool: \(lint.output)")
    }

    @Test func theReaderRefusesBrokenExpositions() throws {
        let good = "# HELP a_total x\n# TYPE a_total counter\na_total 1\n"
        _ = try PrometheusExposition(good)
        for bad in [
            "# TYPE a_total counter\na_total 1",  // no final newline
            "a_total{x=\"1\\q\"} 1\n",  // bad escape
            "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\n# TYPE a gauge\n",  // family twice
            "# TYPE a gauge\na 1\na 2\n",  // duplicate series
            "# TYPE a gauge\na one\n",  // bad value
            "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",  // not cumulative
            "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 1\n",  // +Inf != count
            "# TYPE c counter\nc -1\n",  // negative counter
        ] {
            #expect(throws: PrometheusExposition.Failure.self, "\(bad)") { try PrometheusExposition(bad) }
        }
    }

    @Test func listenAddressesDefaultToLoopback() throws {
        #expect(try MetricsListenAddress.parse("9464").description == "127.0.0.1:9464")
        #expect(try MetricsListenAddress.parse("[::1]:9464").description == "[::1]:9464")
        #expect(try MetricsListenAddress.parse("0.0.0.0:9464").description == "0.0.0.0:9464")
        for bad in ["", "host:1", "99999", "127.0.0.1"] {
            #expect(throws: ConfigError.self, "\(bad)") { try MetricsListenAddress.parse(bad) }
        }
    }

    /// The real daemon on the emulator, a call with audio, a sleep and a resume: `wcs-agent
    /// metrics` and the HTTP endpoint show them, and a Prometheus server on loopback scrapes it.
    @Test func aPrometheusServerScrapesTheDaemon() async throws {
        try await onThread {
            let h = try AgentHarness(media: .webrtc) { _ in ["--ping-interval", "0.5"] }
            let port = try PushPaths.freePort()
            let config = h.scratch.file("agent.conf")
            try "[metrics]\nlisten = \(port)\n".write(toFile: config, atomically: true, encoding: .utf8)
            try h.start(extra: ["--config", config, "--answer", "auto", "--audio-source", "tone:880"])
            func metrics() throws -> PrometheusExposition {
                let result = try h.cli(["metrics", "--socket", h.socketPath])
                guard result.code == 0 else { throw HarnessError("metrics exit \(result.code): \(result.output)") }
                return try PrometheusExposition(result.output + "\n")  // the harness trims the final newline
            }

            let id = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", source: "tone:440").callId
            try h.waitFor("audio at the emulator", timeout: 25) { (try h.emulator.control.call(id)?.media?.packetsReceived ?? 0) > 50 }
            let call = ["call_id": id, "direction": "incoming"]
            try h.waitFor("the call's media in the metrics") { (try metrics().value("wcs_agent_call_packets_received_total", call) ?? 0) > 50 }
            var m = try metrics()
            #expect(m.value("wcs_agent_state", ["state": "online"]) == 1)
            #expect(m.value("wcs_agent_registered") == 1 && m.value("wcs_agent_logins_total") == 1)
            #expect(m.value("wcs_agent_wake_duration_seconds_count") == 1)
            #expect(m.value("wcs_agent_incoming_calls_total") == 1 && m.value("wcs_agent_calls_active") == 1)
            #expect(m.value("wcs_agent_call_jitter_seconds", call) != nil && m.value("wcs_agent_call_loss_ratio", call) != nil)
            try h.waitFor("a pong") { (try metrics().value("wcs_agent_last_pong_age_seconds") ?? 99) < 2 }

            #expect(try h.cli(["hangup", "--socket", h.socketPath]).code == 0)
            try h.waitFor("the call counted as completed") { try metrics().value("wcs_agent_calls_ended_total", ["result": "completed"]) == 1 }
            #expect(try h.cli(["sleep", "--socket", h.socketPath]).code == 0)
            m = try metrics()
            #expect(m.value("wcs_agent_state", ["state": "asleep"]) == 1 && m.value("wcs_agent_state", ["state": "online"]) == 0)
            #expect(try h.cli(["reconnect", "--socket", h.socketPath]).code == 0)
            m = try metrics()
            #expect(m.value("wcs_agent_resumes_total") == 1 && m.value("wcs_agent_wake_duration_seconds_count") == 2)

            // The HTTP endpoint serves the same families; promtool finds nothing to complain about.
            let served = try Self.curl("http://127.0.0.1:\(port)/metrics")
            #expect(served.code == 0 && served.output.hasSuffix("\n200"), "\(served.output.suffix(200))")
            let body = String(served.output.dropLast(4))
            let http = try PrometheusExposition(body)
            #expect(Set(http.types.keys) == Set(try metrics().types.keys))
            let lint = try Self.promtool(body, scratch: ScratchDirectory())
            #expect(lint.code == 0 && lint.output.isEmpty, "promtool: \(lint.output)")
            #expect(try Self.curl("http://127.0.0.1:\(port)/nothing").output.hasSuffix("\n404"))

            // A Prometheus server on loopback scrapes it every second.
            let prometheus = try PrometheusServer(target: "127.0.0.1:\(port)", scratch: h.scratch)
            try h.waitFor("Prometheus to scrape the agent", timeout: 40) {
                try prometheus.query("wcs_agent_resumes_total") == 1 && prometheus.query("up") == 1
            }
            #expect(try prometheus.query("wcs_agent_calls_ended_total{result=\"completed\"}") == 1)
        }
    }
}

/// A real `prometheus` server with a scrape job for one target, its data in a scratch directory.
final class PrometheusServer: @unchecked Sendable {
    let port: Int
    private let process: ChildProcess

    init(target: String, scratch: TemporaryDirectory) throws {
        port = try PushPaths.freePort()
        let config = scratch.file("prometheus.yml")
        try """
        global:
          scrape_interval: 1s
          scrape_timeout: 1s
        scrape_configs:
          - job_name: wcs-agent
            static_configs:
              - targets: ['\(target)']
        """.write(toFile: config, atomically: true, encoding: .utf8)
        process = try ChildProcess(executable: "/usr/bin/prometheus", arguments: [
            "--config.file=\(config)", "--storage.tsdb.path=\(scratch.file("prometheus-data"))",
            "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn"], stderrPath: scratch.file("prometheus.log"))
    }

    deinit { process.kill() }

    /// The value of an instant query with one result, or nil.
    func query(_ expression: String) throws -> Double? {
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expression
        let result = try MetricsTests.curl("http://127.0.0.1:\(port)/api/v1/query?query=\(encoded)")
        guard result.output.hasSuffix("\n200") else { return nil }
        let json = try JSONValue.parse(String(result.output.dropLast(4)))
        guard let first = json["data"]?["result"]?.arrayValue?.first, let pair = first["value"]?.arrayValue, pair.count == 2 else { return nil }
        return pair[1].stringValue.flatMap(Double.init)
    }
}
