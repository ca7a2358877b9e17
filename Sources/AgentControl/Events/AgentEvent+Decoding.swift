import WCSJSON

/// Reads an event back from its wire fields (the prompt, the `events` CLI). An unknown type, or a
/// known type missing a required field, becomes `.other` so a newer daemon never breaks a client.
extension AgentEvent {
    public init(type: String, fields o: [String: JSONValue]) {
        self = Self.decode(type, o) ?? .other(type: type, fields: o)
    }

    private static func decode(_ type: String, _ o: [String: JSONValue]) -> AgentEvent? {
        func text(_ key: String) -> String? { o[key]?.stringValue }
        func number(_ key: String) -> Double? { if case .number(let n)? = o[key] { n } else { nil } }
        let callId = text("call_id")
        switch type {
        case "state":
            return text("state").map { .state($0, reason: text("reason"), retryInSeconds: number("retry_in_seconds")) }
        case "resumed":
            return .resumed(sessionId: text("session_id"), pendingCalls: o["pending_calls"]?.arrayValue?.compactMap(\.stringValue),
                            timeMicroseconds: number("time_us").flatMap { Int64(exactly: $0) })
        case "logged_in": return .loggedIn(sessionId: text("session_id"))
        case "relogged_in": return .reloggedIn(sessionId: text("session_id"))
        case "registration_failed":
            if let error = text("error") { return .registrationFailed(.login(error: error)) }
            return .registrationFailed(.reported(status: text("status"), info: text("info")))
        case "failed": return text("error").map { .failed(error: $0) }
        case "missed_call": return callId.map { .missedCall(callId: $0, caller: text("caller"), uuid: text("uuid")) }
        case "push":
            guard let source = text("source"), let push = text("push") else { return nil }
            return .push(source: source, callId: callId, push: push, outcome: text("outcome"))
        case "push_intake":
            guard let source = text("source"), let state = text("state") else { return nil }
            return .pushIntake(source: source, state: state, error: text("error"))
        case "session_lost_while_asleep":
            return text("detected_by").map { .sessionLostWhileAsleep(aliveUntil: text("alive_until"), detectedBy: $0) }
        case "session_state": return text("state").map { .sessionState($0) }
        case "disconnected": return text("reason").map { .disconnected(reason: $0) }
        case "transfer":
            guard let callId, let status = text("status") else { return nil }
            return .transfer(callId: callId, status: status, info: text("info"))
        case "data": return o["payload"].map { .data(payload: $0) }
        case "data_status":
            guard let id = text("operation_id"), let status = text("status") else { return nil }
            return .dataStatus(operationId: id, status: status, info: text("info"))
        case "server_debug": return text("status").map { .serverDebug(status: $0, file: text("file")) }
        case "warning": return text("message").map { .warning(message: $0) }
        case "incoming_call":
            guard let call = CallDescription(fields: o) else { return nil }
            return .incomingCall(call, replayed: o["replayed"]?.boolValue ?? false, ringTimeout: number("ring_timeout") ?? 30)
        case "call_status": return CallDescription(fields: o).map { .callStatus($0) }
        case "call_rejected":
            guard let callId else { return nil }
            return .callRejected(callId: callId, reason: text("reason") ?? "busy", caller: text("caller"),
                                 maxCalls: Int(number("max_calls") ?? 0))
        case "call_updated":
            guard let callId, let name = text("display_name") else { return nil }
            return .callUpdated(callId: callId, displayName: name, source: text("source") ?? "")
        case "call_control":
            guard let callId, let action = text("action") else { return nil }
            return .callControl(CallControlChange(callId: callId, action: action, held: o["held"]?.boolValue ?? false,
                                                  muted: o["muted"]?.boolValue ?? false, digits: text("digits"),
                                                  via: text("via"), target: text("target")))
        case "call_ended":
            guard let callId else { return nil }
            return .callEnded(CallEndReport(callId: callId, direction: text("direction") ?? "incoming",
                                            status: text("status") ?? "FINISH", declined: o["declined"]?.boolValue ?? false,
                                            info: text("info"), stats: o["stats"], recording: text("recording"),
                                            durationSeconds: number("duration_seconds"), endResult: text("end_result") ?? "",
                                            displayName: text("display_name")))
        case "media":
            guard let callId else { return nil }
            switch text("step") {
            case "ice_connected": return .media(callId: callId, .iceConnected(pair: text("pair") ?? "?"))
            case "dtls_connected": return .media(callId: callId, .dtlsConnected(profile: text("profile") ?? ""))
            case "first_audio":
                return .media(callId: callId, .firstAudio(latencyMs: number("latency_ms"),
                                                          timeMicroseconds: number("time_us").flatMap { Int64(exactly: $0) }))
            default: return nil
            }
        case "media_failed": return callId.map { .mediaFailed(callId: $0, reason: text("reason") ?? "") }
        case "dtmf":
            guard let callId, let digit = text("digit") else { return nil }
            return .dtmf(callId: callId, digit: digit)
        case "action":
            guard let callId, let result = text("result") else { return nil }
            return .action(CallActionReport(callId: callId, action: text("action"), result: result, source: text("source"),
                                            keys: number("keys").flatMap { Int(exactly: $0) }, caller: text("caller"), detail: text("detail")))
        default:
            return nil
        }
    }
}
