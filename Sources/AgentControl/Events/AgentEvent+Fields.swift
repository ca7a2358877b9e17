import WCSJSON

/// The wire JSON of each event: one switch that is also its specification. Optional values are
/// either absent or JSON null exactly as the daemon has always sent them (scripts rely on it).
extension AgentEvent {
    /// The `type` of the event on the wire.
    public var type: String {
        switch self {
        case .state: "state"
        case .resumed: "resumed"
        case .loggedIn: "logged_in"
        case .reloggedIn: "relogged_in"
        case .registrationFailed: "registration_failed"
        case .failed: "failed"
        case .missedCall: "missed_call"
        case .push: "push"
        case .pushIntake: "push_intake"
        case .sessionLostWhileAsleep: "session_lost_while_asleep"
        case .sessionState: "session_state"
        case .disconnected: "disconnected"
        case .transfer: "transfer"
        case .data: "data"
        case .dataStatus: "data_status"
        case .serverDebug: "server_debug"
        case .warning: "warning"
        case .incomingCall: "incoming_call"
        case .callStatus: "call_status"
        case .callRejected: "call_rejected"
        case .callUpdated: "call_updated"
        case .callControl: "call_control"
        case .callEnded: "call_ended"
        case .media: "media"
        case .mediaFailed: "media_failed"
        case .dtmf: "dtmf"
        case .action: "action"
        case .other(let type, _): type
        }
    }

    /// The event's fields, without `type` and `time`.
    public var fields: [String: JSONValue] {
        func orNull(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        switch self {
        case .state(let state, let reason, let retry):
            var o: [String: JSONValue] = ["state": .string(state)]
            if let reason { o["reason"] = .string(reason) }
            if let retry { o["retry_in_seconds"] = .number(retry) }
            return o
        case .resumed(let sessionId, let pending, let microseconds):
            var o: [String: JSONValue] = ["session_id": orNull(sessionId)]
            if let pending { o["pending_calls"] = .array(pending.map(JSONValue.string)) }
            if let microseconds { o["time_us"] = .number(Double(microseconds)) }
            return o
        case .loggedIn(let sessionId), .reloggedIn(let sessionId):
            return ["session_id": orNull(sessionId)]
        case .registrationFailed(.login(let error)):
            return ["error": .string(error)]
        case .registrationFailed(.reported(let status, let info)):
            return ["status": orNull(status), "info": orNull(info)]
        case .failed(let error):
            return ["error": .string(error)]
        case .missedCall(let callId, let caller, let uuid):
            return ["call_id": .string(callId), "caller": orNull(caller), "uuid": orNull(uuid)]
        case .push(let source, let callId, let push, let outcome):
            return ["source": .string(source), "call_id": orNull(callId), "push": .string(push), "outcome": orNull(outcome)]
        case .pushIntake(let source, let state, let error):
            return ["source": .string(source), "state": .string(state), "error": orNull(error)]
        case .sessionLostWhileAsleep(let aliveUntil, let detectedBy):
            return ["alive_until": orNull(aliveUntil), "detected_by": .string(detectedBy)]
        case .sessionState(let state):
            return ["state": .string(state)]
        case .disconnected(let reason):
            return ["reason": .string(reason)]
        case .transfer(let callId, let status, let info):
            return ["call_id": .string(callId), "status": .string(status), "info": orNull(info)]
        case .data(let payload):
            return ["payload": payload]
        case .dataStatus(let operationId, let status, let info):
            return ["operation_id": .string(operationId), "status": .string(status), "info": orNull(info)]
        case .serverDebug(let status, let file):
            return ["status": .string(status), "file": orNull(file)]
        case .warning(let message):
            return ["message": .string(message)]
        case .incomingCall(let call, let replayed, let ringTimeout):
            var o = call.fields
            o["replayed"] = .bool(replayed)
            o["ring_timeout"] = .number(ringTimeout)
            return o
        case .callStatus(let call):
            return call.fields
        case .callRejected(let callId, let reason, let caller, let maxCalls):
            return ["call_id": .string(callId), "reason": .string(reason), "caller": orNull(caller),
                    "max_calls": .number(Double(maxCalls))]
        case .callUpdated(let callId, let displayName, let source):
            return ["call_id": .string(callId), "display_name": .string(displayName), "source": .string(source)]
        case .callControl(let c):
            var o: [String: JSONValue] = ["call_id": .string(c.callId), "action": .string(c.action), "held": .bool(c.held),
                                          "muted": .bool(c.muted)]
            if let digits = c.digits { o["digits"] = .string(digits) }
            if let via = c.via { o["via"] = .string(via) }
            if let target = c.target { o["target"] = .string(target) }
            return o
        case .callEnded(let e):
            var o: [String: JSONValue] = ["call_id": .string(e.callId), "direction": .string(e.direction),
                                          "status": .string(e.status), "declined": .bool(e.declined),
                                          "end_result": .string(e.endResult)]
            if let info = e.info { o["info"] = .string(info) }
            if let stats = e.stats { o["stats"] = stats }
            if let recording = e.recording { o["recording"] = .string(recording) }
            if let seconds = e.durationSeconds { o["duration_seconds"] = .number(seconds) }
            if let name = e.displayName { o["display_name"] = .string(name) }
            return o
        case .media(let callId, .iceConnected(let pair)):
            return ["call_id": .string(callId), "step": "ice_connected", "pair": .string(pair)]
        case .media(let callId, .dtlsConnected(let profile)):
            return ["call_id": .string(callId), "step": "dtls_connected", "profile": .string(profile)]
        case .media(let callId, .firstAudio(let latency, let microseconds)):
            var o: [String: JSONValue] = ["call_id": .string(callId), "step": "first_audio", "latency_ms": latency.map(JSONValue.number) ?? .null]
            if let microseconds { o["time_us"] = .number(Double(microseconds)) }
            return o
        case .mediaFailed(let callId, let reason):
            return ["call_id": .string(callId), "reason": .string(reason)]
        case .dtmf(let callId, let digit):
            return ["call_id": .string(callId), "digit": .string(digit)]
        case .action(let a):
            return ["call_id": .string(a.callId), "action": orNull(a.action), "result": .string(a.result), "source": orNull(a.source),
                    "keys": a.keys.map { .number(Double($0)) } ?? .null, "caller": orNull(a.caller), "detail": orNull(a.detail)]
        case .other(_, let fields):
            return fields
        }
    }

    /// The call the event is about, if any.
    public var callId: String? {
        fields["call_id"]?.stringValue
    }
}
