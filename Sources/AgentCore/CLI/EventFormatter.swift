import WCSSession

/// The human line `wcs-agent events` prints for one event (pure function; the JSON is the wire's).
/// In AgentCore, not AgentControl, because it decodes `AgentEvent`; the lean front execs the full
/// binary for human `events` and prints `events --json` itself.
enum EventFormatter {
    /// One line for an event, decoded as `AgentEvent` (unknown types print their fields).
    static func line(_ e: JSONValue) -> String {
        let timed = TimedAgentEvent(json: e) ?? TimedAgentEvent(.other(type: "?", fields: e.objectValue ?? [:]),
                                                              time: e["time"]?.stringValue ?? "")
        let time = String(timed.time.dropFirst(11).prefix(12))
        let detail: String
        switch timed.event {
        case .incomingCall(let call, let replayed, _):
            detail = "\(call.callId) from \(StatusFormatter.party(.object(call.fields)))\(replayed ? " (after resume)" : "")"
        case .callStatus(let call): detail = "\(call.callId) \(call.status)\(call.info.map { " (\($0))" } ?? "")"
        case .state(let state, _, _), .sessionState(let state): detail = state
        case .disconnected(let reason): detail = reason
        default:
            var o = timed.event.fields
            o["time"] = nil
            detail = o.isEmpty ? "" : JSONValue.object(o).serialized()
        }
        return "\(time) \(timed.event.type) \(detail)"
    }
}
