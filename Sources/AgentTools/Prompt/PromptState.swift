import AgentCore
import FoundationEssentials
import WCSSession

/// What the prompt knows, rebuilt from the daemon's `status` answers and events, so every attached
/// terminal shows the same thing whichever of them (or another client) acted.
struct PromptState: Sendable {
    /// What one event changed.
    struct EventOutcome: Sendable, Equatable {
        /// Lines to print above the live status (a call ended, a request failed...).
        var notes: [String] = []
        /// True when a new incoming call started ringing (ring the bell).
        var ring = false
        /// True when the prompt should ask for a fresh `status`.
        var refresh = false
    }

    /// A transfer target being typed.
    struct TransferInput: Sendable, Equatable {
        var callId: String
        var text = ""
    }

    /// Seconds to count down from when the daemon does not say how long a call rings.
    var defaultRingTimeout: Double
    /// The daemon's phase (`online`, `asleep`, `connecting`...).
    var connection = "unknown"
    var registered = false
    var lastError: String?
    /// Current calls, oldest first.
    private(set) var calls: [PromptCall] = []
    /// The transfer target being typed, if any.
    var transferInput: TransferInput?
    /// When each active call was first seen established (when the daemon gives no answer time).
    private var establishedAt: [String: Date] = [:]
    /// Calls already rung or noted as ended, so each rings and ends once.
    private var rung: Set<String> = []
    private var endedNoted: Set<String> = []
    /// The party of every call seen, kept after it ends: a `status` may drop a call before its end event arrives.
    private var parties: [String: String] = [:]

    init(defaultRingTimeout: Double = 30) {
        self.defaultRingTimeout = defaultRingTimeout
    }

    /// The oldest incoming call that can still be answered.
    var ringingCall: PromptCall? { calls.first { $0.isRingingIn } }

    /// The call that h, p, m, t and DTMF act on: the one talking, else one on hold, else an outgoing one.
    var activeCall: PromptCall? {
        calls.first { $0.status == .established && !$0.isOnHold } ?? calls.first { $0.isActive }
            ?? calls.first { $0.direction == "outgoing" }
    }

    /// Seconds the call has been answered, or nil while it is not.
    func talkSeconds(_ call: PromptCall, now: Date) -> Double? {
        guard call.isActive, let since = call.answered ?? establishedAt[call.callId] else { return nil }
        return now.timeIntervalSince(since)
    }

    /// Seconds left before the caller gives up, counted from the ring start.
    func ringSecondsLeft(_ call: PromptCall, now: Date) -> Double {
        let timeout = call.ringTimeout ?? defaultRingTimeout
        guard let started = call.started else { return timeout }
        return max(0, timeout - now.timeIntervalSince(started))
    }

    /// Replaces everything with a `status` answer. Returns true if a new call started ringing.
    mutating func apply(status: JSONValue, now: Date) -> Bool {
        connection = status["state"]?.stringValue ?? connection
        registered = status["registered"]?.boolValue ?? registered
        lastError = status["last_error"]?.stringValue
        let fresh = (status["calls"]?.arrayValue ?? []).compactMap(PromptCall.init(json:))
            .filter { !endedNoted.contains($0.callId) }  // a status taken just before the end event
        var ring = false
        for var call in fresh {
            if let known = calls.first(where: { $0.callId == call.callId }) {
                call.muted = call.muted ?? known.muted
                call.held = call.held ?? known.held
            }
            ring = noteRinging(call) || ring
            if call.isActive, call.answered == nil, establishedAt[call.callId] == nil { establishedAt[call.callId] = now }
            upsert(call)
        }
        let ids = Set(fresh.map(\.callId))
        calls.removeAll { !ids.contains($0.callId) }
        establishedAt = establishedAt.filter { ids.contains($0.key) }
        if let input = transferInput, !ids.contains(input.callId) { transferInput = nil }
        return ring
    }

    /// Applies one event as received from the daemon; see `EventOutcome`.
    mutating func apply(event json: JSONValue, now: Date) -> EventOutcome {
        guard let timed = TimedAgentEvent(json: json) else { return EventOutcome(refresh: true) }
        return apply(event: timed, now: now)
    }

    /// Applies one typed event; see `EventOutcome`.
    mutating func apply(event timed: TimedAgentEvent, now: Date) -> EventOutcome {
        var outcome = EventOutcome()
        let time = PromptTime.parse(timed.time) ?? now
        switch timed.event {
        case .state(let state, _, _):
            connection = state
            outcome.refresh = true
        case .incomingCall(let description, _, let ringTimeout):
            outcome = apply(call: PromptCall(description, ringTimeout: ringTimeout), time: time)
        case .callStatus(let description):
            outcome = apply(call: PromptCall(description, ringTimeout: nil), time: time)
        case .callEnded(let end):
            // Another device's call is never shown as ours ended (issue 19, invariant c).
            var how = end.endResult == "answered_elsewhere" ? "answered elsewhere" : end.declined ? "declined" : end.status.lowercased()
            if let seconds = end.durationSeconds { how += " after \(PromptTime.clock(seconds))" }
            outcome.notes += noteEnded(end.callId, how)
            remove(end.callId)
            outcome.refresh = true
        case .mediaFailed(let callId, let reason):
            outcome.notes.append("Audio failed on \(describe(callId)): \(reason.isEmpty ? "unknown reason" : reason)")
        case .transfer(let callId, let status, let info):
            outcome.notes.append("Transfer of \(describe(callId)): \(status)\(info.map { " (\($0))" } ?? "")")
            outcome.refresh = true
        case .dtmf(let callId, let digit):
            outcome.notes.append("\(describe(callId)) pressed \(digit)")
        case .registrationFailed(.login(let error)), .failed(let error):
            outcome.notes.append("Agent: \(error)")
            outcome.refresh = true
        case .registrationFailed(.reported(let status, _)):
            outcome.notes.append("Agent: \(status ?? "registration failed")")
            outcome.refresh = true
        case .callControl(let change):
            // hold/mute: take the state it carries, then ask the daemon.
            if let index = calls.firstIndex(where: { $0.callId == change.callId }) {
                calls[index].muted = change.muted
                calls[index].held = change.held
            }
            outcome.refresh = true
        default:
            outcome.refresh = true
        }
        return outcome
    }

    /// An `incoming_call` or `call_status`: the call rings, changes or ends.
    private mutating func apply(call fresh: PromptCall, time: Date) -> EventOutcome {
        var outcome = EventOutcome(refresh: true)
        var call = fresh
        if call.started == nil { call.started = time }
        if let known = calls.first(where: { $0.callId == call.callId }) {
            call.started = known.started ?? call.started
            call.muted = call.muted ?? known.muted
            call.held = call.held ?? known.held
            call.answered = call.answered ?? known.answered
        }
        if call.status.isTerminal {
            outcome.notes += noteEnded(call.callId, "\(call.status.wire.lowercased())\(call.info.map { ": \($0)" } ?? "")")
            remove(call.callId)
        } else {
            if call.status == .established, establishedAt[call.callId] == nil { establishedAt[call.callId] = time }
            outcome.ring = noteRinging(call)
            upsert(call)
        }
        return outcome
    }

    /// Records the daemon's answer to a mute or hold request (when it carries the new state).
    mutating func apply(result: JSONValue, callId: String) {
        guard let index = calls.firstIndex(where: { $0.callId == callId }) else { return }
        if let muted = result["muted"]?.boolValue { calls[index].muted = muted }
        if let held = (result["held"] ?? result["on_hold"])?.boolValue { calls[index].held = held }
    }

    /// "Alice <1002>" for a known call, else its id.
    func describe(_ callId: String?) -> String {
        guard let callId else { return "the call" }
        return calls.first { $0.callId == callId }?.party ?? parties[callId] ?? "call \(callId)"
    }

    private mutating func noteRinging(_ call: PromptCall) -> Bool {
        guard call.isRingingIn, !rung.contains(call.callId) else { return false }
        rung.insert(call.callId)
        return true
    }

    private mutating func noteEnded(_ callId: String, _ how: String) -> [String] {
        guard !endedNoted.contains(callId) else { return [] }
        endedNoted.insert(callId)
        return ["Call with \(describe(callId)) ended (\(how))"]
    }

    private mutating func upsert(_ call: PromptCall) {
        if parties.count > 1000 { parties.removeAll() }
        parties[call.callId] = call.party
        if let index = calls.firstIndex(where: { $0.callId == call.callId }) {
            calls[index] = call
        } else {
            calls.append(call)
            calls.sort { ($0.started ?? .distantPast) < ($1.started ?? .distantPast) }
        }
    }

    private mutating func remove(_ callId: String) {
        calls.removeAll { $0.callId == callId }
        establishedAt[callId] = nil
        if transferInput?.callId == callId { transferInput = nil }
    }
}
