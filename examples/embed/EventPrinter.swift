import WCSSession

/// One line per session event, for a human or a script.
enum EventPrinter {
    static func line(for event: SessionEvent) -> String {
        switch event {
        case .stateChanged(let state):
            "state \(state.rawValue)"
        case .registrationFailed(let status, let info):
            "registration failed: \(status ?? "?") \(info ?? "")"
        case .incomingCall(let call, let offer, let replayed):
            "incoming call \(call.callId) from \(call.caller ?? "?")\(call.visibleName.map { " (\($0))" } ?? "")"
                + (offer == nil ? " [no SDP offer]" : "") + (replayed ? " [ringing since before the resume]" : "")
        case .remoteSDP(let callId, _):
            "call \(callId): SDP received"
        case .callStatus(let call):
            "call \(call.callId) \(call.status.wire)\(call.info.map { ": \($0)" } ?? "")"
        case .transfer(let callId, let status, let info):
            "call \(callId) transfer \(status)\(info.map { ": \($0)" } ?? "")"
        case .dataEvent(let payload):
            "data \(payload.serialized())"
        case .dataStatus(let operationId, let status, _):
            "data \(operationId) \(status)"
        case .dtmf(let callId, let digits, _):
            "call \(callId) relayed DTMF (\(digits.count) keys)"
        case .sessionDebug(let status, let file):
            "server debug \(status)\(file.map { " \($0)" } ?? "")"
        case .warning(let text):
            "warning \(text)"
        case .disconnected(let reason):
            "disconnected (\(reason))"
        }
    }
}
