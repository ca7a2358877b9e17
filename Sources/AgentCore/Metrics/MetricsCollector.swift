import SystemSupport
import FoundationEssentials
import Synchronization
import WCSSession

/// The daemon's counters for `wcs-agent metrics`, kept for the life of the process (across
/// reloads that replace the agent, so counters never go backwards): logins, relogins and resumes,
/// lost connections, wake latencies, and calls by end result. Fed with every event the agents
/// publish (`observe`), so the connection and call code needs no metrics calls of its own.
///
/// Runs on: any thread; agents publish from their actors and scrapes read from control or HTTP
/// tasks, so the state sits in a `Mutex` and every method returns at once.
final class MetricsCollector: Sendable {
    /// What has been counted so far (a copy, for one scrape).
    struct Counters: Sendable, Equatable {
        var logins = 0
        var relogins = 0
        var resumes = 0
        var disconnects = 0
        var registrationFailures = 0
        var missedWhileAsleep = 0
        var sessionsLostWhileAsleep = 0
        /// Keep-time refreshes of a sleeping agent (`state` connecting with reason `refresh`).
        var sleepRefreshes = 0
        var rejectedAsBusy = 0
        var incomingCalls = 0
        var callsEnded: [String: Int] = Dictionary(uniqueKeysWithValues: CallEndResult.allCases.map { ($0.rawValue, 0) })
        var wake = WakeLatencyHistogram()
        /// Pushes by `source` and `outcome` (the `push` events).
        var pushes: [PushCount: Int] = [:]
        /// Whether each push intake with a broker (`mqtt`) is connected, once it has said so.
        var pushIntakeConnected: [String: Bool] = [:]
        /// Broker connections of push intakes lost, by source.
        var pushIntakeDisconnects: [String: Int] = [:]
    }

    /// A `wcs_agent_pushes_total` series.
    struct PushCount: Hashable, Sendable {
        var source: String
        var outcome: String
    }

    private struct State {
        var counters = Counters()
        /// Monotonic seconds at which the attempt in progress started.
        var attemptStartedAt: Double?
    }

    private let state = Mutex(State())
    /// When the daemon (this collector) started: `wcs_agent_uptime_seconds` counts from here.
    let startedAt = Date()
    private let clock: @Sendable () -> Double

    /// A collector with every counter at zero. `clock` gives monotonic seconds (tests pass their own).
    init(clock: @escaping @Sendable () -> Double = { MonotonicTime.now() }) {
        self.clock = clock
    }

    /// Counts a published event (the wire JSON an agent hands to its subscribers).
    func observe(json: JSONValue) {
        guard let timed = TimedAgentEvent(json: json) else { return }
        observe(timed.event)
    }

    /// Counts one event.
    func observe(_ event: AgentEvent) {
        let now = clock()
        state.withLock { s in
            switch event {
            case .state(let phase, let reason, _):
                if phase == AgentPhase.connecting.rawValue {
                    s.attemptStartedAt = now
                    if reason == Agent.refreshReason { s.counters.sleepRefreshes += 1 }
                } else if phase == AgentPhase.online.rawValue {
                    if let started = s.attemptStartedAt { s.counters.wake.observe(max(0, now - started)) }
                    s.attemptStartedAt = nil
                } else {
                    s.attemptStartedAt = nil
                }
            case .loggedIn: s.counters.logins += 1
            case .reloggedIn: s.counters.relogins += 1
            case .resumed: s.counters.resumes += 1
            case .disconnected: s.counters.disconnects += 1
            case .registrationFailed: s.counters.registrationFailures += 1
            case .missedCall: s.counters.missedWhileAsleep += 1
            case .sessionLostWhileAsleep: s.counters.sessionsLostWhileAsleep += 1
            case .callRejected: s.counters.rejectedAsBusy += 1
            case .incomingCall(_, let replayed, _):
                if !replayed { s.counters.incomingCalls += 1 }
            case .push(let source, _, let outcome, _):
                s.counters.pushes[PushCount(source: source, outcome: outcome), default: 0] += 1
            case .pushIntake(let source, let state, _):
                let connected = state == "connected"
                if s.counters.pushIntakeConnected[source] == true && !connected { s.counters.pushIntakeDisconnects[source, default: 0] += 1 }
                s.counters.pushIntakeConnected[source] = connected
            case .callEnded(let report):
                s.counters.callsEnded[report.endResult, default: 0] += 1
            default:
                break
            }
        }
    }

    /// The counters now.
    var counters: Counters { state.withLock { $0.counters } }
}
