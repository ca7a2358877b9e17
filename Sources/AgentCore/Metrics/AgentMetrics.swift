import FoundationEssentials
import WCSSession

/// What one scrape shows: the collector's counters and a look at the agent now. Gathered by
/// `AgentMetrics.scrape` and rendered by `AgentMetrics.render` (pure, so tests can pin the text).
struct MetricsSnapshot: Sendable {
    var counters: MetricsCollector.Counters
    /// The agent's phase (`AgentPhase` raw value).
    var state: String
    /// The session state machine's state.
    var sessionState: String
    var registered: Bool
    var hasToken: Bool
    /// Seconds since the agent last answered a server ping with a pong; nil before the first.
    var lastPongAgeSeconds: Double?
    var tokenAgeSeconds: Int?
    var calls: [CallSummary]
    var uptimeSeconds: Double
}

/// `wcs-agent metrics` and `[metrics] listen`: the Prometheus text exposition of the daemon.
///
/// Families (all prefixed `wcs_agent_`): `info`, `uptime_seconds`, `state`, `session_state`,
/// `registered`, `has_token`, `token_age_seconds`, `last_pong_age_seconds`, `logins_total`,
/// `relogins_total`, `resumes_total`, `disconnects_total`, `registration_failures_total`,
/// `wake_duration_seconds` (histogram), `incoming_calls_total`, `calls_ended_total{result}`,
/// `calls_rejected_busy_total`, `missed_while_asleep_total`, `sleep_refreshes_total`,
/// `sessions_lost_while_asleep_total`, `calls_active`, and per live call
/// (`call_id`, `direction` labels) `call_packets_received_total`, `call_packets_lost_total`,
/// `call_loss_ratio`, `call_jitter_seconds`, `call_rtt_seconds`. docs/metrics.md explains each.
///
/// Stateless; `scrape` runs on the requesting task (a control request or the HTTP listener's).
enum AgentMetrics {
    /// The agent phases, each a `wcs_agent_state` series (1 for the current one).
    static let phases: [AgentPhase] = [.starting, .connecting, .online, .asleep, .waitingToRetry, .registrationFailed, .failed, .stopping]
    /// The session states, each a `wcs_agent_session_state` series.
    static let sessionStates: [SessionState] = [.disconnected, .connecting, .connected, .established, .registered]

    /// Looks at `agent` now and renders the exposition with `collector`'s counters.
    static func scrape(_ agent: Agent, collector: MetricsCollector) async throws -> String {
        let status = try await ControlVerbs.statusOf(agent)
        let lastPong = await agent.session.lastPongAt
        let snapshot = MetricsSnapshot(
            counters: collector.counters, state: status.state, sessionState: status.sessionState,
            registered: status.registered, hasToken: status.hasToken,
            lastPongAgeSeconds: lastPong.map { max(0, Date().timeIntervalSince($0)) }, tokenAgeSeconds: status.tokenAgeSeconds,
            calls: await agent.calls(), uptimeSeconds: Date().timeIntervalSince(collector.startedAt))
        return render(snapshot)
    }

    /// The exposition text of `s`.
    static func render(_ s: MetricsSnapshot) -> String {
        var out = PrometheusText()
        let c = s.counters
        out.family("wcs_agent_info", .gauge, "Always 1; the version label is the daemon's version.")
        out.sample("wcs_agent_info", ["version": AgentCore.version], 1)
        out.family("wcs_agent_uptime_seconds", .gauge, "Seconds since the daemon started.")
        out.sample("wcs_agent_uptime_seconds", [:], (s.uptimeSeconds * 1000).rounded() / 1000)
        out.family("wcs_agent_state", .gauge, "1 for the agent's current state, 0 for the others.")
        var phases = phases.map(\.rawValue)
        if !phases.contains(s.state) { phases.append(s.state) }
        for phase in phases { out.sample("wcs_agent_state", ["state": phase], phase == s.state ? 1 : 0) }
        out.family("wcs_agent_session_state", .gauge, "1 for the WCS session's current state, 0 for the others.")
        var states = sessionStates.map(\.rawValue)
        if !states.contains(s.sessionState) { states.append(s.sessionState) }
        for state in states { out.sample("wcs_agent_session_state", ["state": state], state == s.sessionState ? 1 : 0) }
        gauge(&out, "registered", "1 while online and registered with the SIP server.", s.registered ? 1 : 0)
        gauge(&out, "has_token", "1 while a session token is stored.", s.hasToken ? 1 : 0)
        if let age = s.tokenAgeSeconds { gauge(&out, "token_age_seconds", "Seconds since the session token was stored.", Double(age)) }
        if let age = s.lastPongAgeSeconds {
            gauge(&out, "last_pong_age_seconds", "Seconds since the agent last answered a server ping with a pong.", (age * 1000).rounded() / 1000)
        }
        counter(&out, "logins_total", "Fresh logins with credentials.", c.logins)
        counter(&out, "relogins_total", "Logins after the server had lost the session (the token was gone).", c.relogins)
        counter(&out, "resumes_total", "Sessions resumed by token.", c.resumes)
        counter(&out, "disconnects_total", "Connections to the server lost or closed.", c.disconnects)
        counter(&out, "registration_failures_total", "SIP registrations refused.", c.registrationFailures)
        out.family("wcs_agent_wake_duration_seconds", .histogram, "Seconds from the start of a login or resume to the session being online.")
        for (bound, count) in c.wake.cumulative { out.sample("wcs_agent_wake_duration_seconds_bucket", ["le": bound], Double(count)) }
        out.sample("wcs_agent_wake_duration_seconds_sum", [:], (c.wake.sum * 1e6).rounded() / 1e6)
        out.sample("wcs_agent_wake_duration_seconds_count", [:], Double(c.wake.count))
        counter(&out, "incoming_calls_total", "Incoming calls that rang (a replay after a resume counts once).", c.incomingCalls)
        out.family("wcs_agent_calls_ended_total", .counter, "Calls ended, by end result (as recorded in calls.jsonl).")
        for (result, count) in c.callsEnded.sorted(by: { $0.key < $1.key }) {
            out.sample("wcs_agent_calls_ended_total", ["result": result], Double(count))
        }
        counter(&out, "calls_rejected_busy_total", "Incoming calls declined at once as busy (max_calls reached, or an answer rule said reject).", c.rejectedAsBusy)
        counter(&out, "missed_while_asleep_total", "Pushed calls that ended before the session came back.", c.missedWhileAsleep)
        counter(&out, "sleep_refreshes_total", "Resumes by token of a sleeping agent to keep its server session ([agent] session_keep).", c.sleepRefreshes)
        counter(&out, "sessions_lost_while_asleep_total", "Server sessions found gone while the agent slept (a fresh login followed; calls in between could not reach it).", c.sessionsLostWhileAsleep)
        pushFamilies(&out, c)
        gauge(&out, "calls_active", "Calls the agent holds now (ringing, talking, held, ending).", Double(s.calls.count))
        callFamilies(&out, s.calls)
        return out.text
    }

    /// Outcomes a push may have (`PushOutcome` and `invalid`), each source's series always present.
    static let pushOutcomes = ["ringing", "missed", "ended", "answered_elsewhere", "duplicate", "not_connected", "invalid"]

    /// Pushes by source and outcome; each broker intake's connection.
    private static func pushFamilies(_ out: inout PrometheusText, _ c: MetricsCollector.Counters) {
        out.family("wcs_agent_pushes_total", .counter, "Pushes handled, by source (reconnect, webhook, mqtt) and outcome.")
        for source in PushSource.allCases.map(\.rawValue) {
            for outcome in pushOutcomes {
                out.sample("wcs_agent_pushes_total", labels: [("source", source), ("outcome", outcome)],
                           Double(c.pushes[.init(source: source, outcome: outcome)] ?? 0))
            }
        }
        guard !c.pushIntakeConnected.isEmpty else { return }
        out.family("wcs_agent_push_intake_connected", .gauge, "1 while the push intake's broker connection is up.")
        for (source, up) in c.pushIntakeConnected.sorted(by: { $0.key < $1.key }) {
            out.sample("wcs_agent_push_intake_connected", ["source": source], up ? 1 : 0)
        }
        out.family("wcs_agent_push_intake_disconnects_total", .counter, "Broker connections of the push intake lost.")
        for source in c.pushIntakeConnected.keys.sorted() {
            out.sample("wcs_agent_push_intake_disconnects_total", ["source": source], Double(c.pushIntakeDisconnects[source] ?? 0))
        }
    }

    /// Media figures of each call with media, labelled by call id and direction.
    private static func callFamilies(_ out: inout PrometheusText, _ calls: [CallSummary]) {
        let withStats = calls.compactMap { call in call.stats?.objectValue.map { (call, $0) } }
        func each(_ name: String, _ type: PrometheusText.MetricType, _ help: String, _ value: ([String: JSONValue]) -> Double?) {
            let rows = withStats.compactMap { call, stats in value(stats).map { (call, $0) } }
            guard !rows.isEmpty else { return }
            out.family("wcs_agent_\(name)", type, help)
            for (call, v) in rows {
                out.sample("wcs_agent_\(name)", labels: [("call_id", call.call.callId), ("direction", call.call.direction ?? "unknown")], v)
            }
        }
        func number(_ o: [String: JSONValue], _ key: String) -> Double? { if case .number(let n)? = o[key] { n } else { nil } }
        each("call_packets_received_total", .counter, "RTP packets received on the call.") { number($0, "packets_received") }
        each("call_packets_lost_total", .counter, "RTP packets lost on the way to us (from sequence gaps).") { number($0, "packets_lost") }
        each("call_loss_ratio", .gauge, "Share of the call's incoming RTP packets lost (0..1).") { o in
            guard let lost = number(o, "packets_lost"), let received = number(o, "packets_received"), lost + received > 0 else { return 0 }
            return (max(0, lost) / (max(0, lost) + received) * 1e4).rounded() / 1e4
        }
        each("call_jitter_seconds", .gauge, "Interarrival jitter of the call's incoming RTP (RFC 3550).") { number($0, "jitter_ms").map { $0 / 1000 } }
        each("call_rtt_seconds", .gauge, "Round-trip time from RTCP reports (absent until measured).") { number($0, "rtt_ms").map { $0 / 1000 } }
    }

    private static func gauge(_ out: inout PrometheusText, _ name: String, _ help: String, _ value: Double) {
        out.family("wcs_agent_\(name)", .gauge, help)
        out.sample("wcs_agent_\(name)", [:], value)
    }

    private static func counter(_ out: inout PrometheusText, _ name: String, _ help: String, _ value: Int) {
        out.family("wcs_agent_\(name)", .counter, help)
        out.sample("wcs_agent_\(name)", [:], Double(value))
    }
}
