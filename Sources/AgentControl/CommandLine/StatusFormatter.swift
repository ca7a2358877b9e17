import WCSJSON

/// Human renderings of `status`, `reconnect` results and events, for the CLI (pure functions).
/// Text the server or the far end chose (session and call ids, numbers, names, errors quoting the
/// server) is escaped field by field (`field`, `UntrustedText`), so no row can be broken or forged
/// and no control or bidi character reaches the terminal.
public enum StatusFormatter {
    /// The human `status` block.
    @Sendable public static func human(_ s: StatusResult) -> String {
        var lines: [String] = []
        func row(_ label: String, _ value: String) { lines.append(CallTableFormatter.pad(label, 17) + UntrustedText.escaped(value)) }
        row("state:", s.state + (s.state == "online" ? (s.registered ? " (registered)" : " (not registered)") : ""))
        row("server:", s.server)
        row("session:", s.sessionId ?? "-")
        row("sip login:", s.sipLogin ?? "-")
        row("connected since:", s.connectedSince ?? "-")
        row("token age:", s.tokenAgeSeconds.map(duration) ?? (s.hasToken ? "?" : "no token"))
        if let retry = s.nextRetryInSeconds { row("next retry in:", "\(JSONValue.number(retry).stringValue ?? "?") s") }
        if let error = s.lastError { row("last error:", error) }
        if let sleep = s.sleep {
            row("sleep:", sleep.mode + (sleep.requested && sleep.mode == "never" ? " (asleep on request)" : ""))
            if let kept = sleep.sessionKeptUntil { row("session kept:", "until \(kept)") }
            if let at = sleep.nextRefreshAt {
                row("next refresh:", at + (sleep.nextRefreshInSeconds.map { " (in \(duration(Int($0.rounded()))))" } ?? ""))
            }
            if sleep.sessionsLost > 0 {
                row("lost asleep:", "\(sleep.sessionsLost) (last: alive until \(sleep.lostAliveUntil ?? "?"), found gone \(sleep.lostDetectedAt ?? "?"))")
            }
        }
        row("calls:", s.calls.isEmpty ? "none" : "\(s.calls.count)")
        for call in s.calls {
            let flags = (call["held"]?.boolValue == true ? "  held" : "") + (call["muted"]?.boolValue == true ? "  muted" : "")
            lines.append("  \(field(call["call_id"]))  \(field(call["direction"], ""))  \(field(call["status"], ""))  \(party(call))\(flags)")
        }
        return lines.joined(separator: "\n")
    }

    /// The human `reconnect` line.
    public static func reconnect(_ r: ReconnectResult) -> String {
        let outcome = UntrustedText.escaped(r.outcome ?? "?")
        if r.status.state == "online" { return "online (\(String(outcome.map { $0 == "_" ? " " : $0 })))" }
        return "not back: \(UntrustedText.escaped(r.status.state))\(r.status.lastError.map { ": \(UntrustedText.escaped($0))" } ?? "")"
    }

    /// The human `reconnect --payload` line.
    public static func push(_ r: ReconnectResult) -> String {
        let call = UntrustedText.escaped(r.callId ?? "?")
        switch r.push {
        case PushOutcome.ringing.rawValue: return "push for call \(call): ringing; \(reconnect(r))"
        case PushOutcome.missed.rawValue: return "push for call \(call): the call ended before the session came back; recorded as missed"
        case PushOutcome.duplicate.rawValue: return "push for call \(call): already handled (duplicate); nothing done"
        case PushOutcome.answeredElsewhere.rawValue:
            return "push for call \(call): another device answered it; recorded as answered elsewhere, not rung; \(reconnect(r))"
        case PushOutcome.ended.rawValue:
            return "push for call \(call): it could not ring (busy, no usable offer, or it ended at once); recorded; \(reconnect(r))"
        default: return "push for call \(call): \(reconnect(r))"
        }
    }

    /// One line for an event, decoded as `AgentEvent` (unknown types print their fields).
    public static func event(_ e: JSONValue) -> String {
        let timed = TimedAgentEvent(json: e) ?? TimedAgentEvent(.other(type: "?", fields: e.objectValue ?? [:]),
                                                              time: e["time"]?.stringValue ?? "")
        let time = String(timed.time.dropFirst(11).prefix(12))
        let detail: String
        switch timed.event {
        case .incomingCall(let call, let replayed, _):
            detail = "\(UntrustedText.escaped(call.callId)) from \(party(.object(call.fields)))\(replayed ? " (after resume)" : "")"
        case .callStatus(let call):
            detail = UntrustedText.escaped("\(call.callId) \(call.status)\(call.info.map { " (\($0))" } ?? "")")
        case .state(let state, _, _), .sessionState(let state): detail = UntrustedText.escaped(state)
        case .disconnected(let reason): detail = UntrustedText.escaped(reason)
        default:
            var o = timed.event.fields
            o["time"] = nil
            detail = o.isEmpty ? "" : JSONValue.object(o).serialized()
        }
        return "\(UntrustedText.escaped(time)) \(UntrustedText.escaped(timed.event.type)) \(detail)"
    }

    /// A string field of a call or status object for a human line: escaped, `missing` when absent.
    public static func field(_ value: JSONValue?, _ missing: String = "?") -> String {
        value?.stringValue.map { UntrustedText.escaped($0) } ?? missing
    }
    /// `Name <number>` of a call object's caller (the number alone when there is no other name).
    /// Escaped: both come from the far end.
    public static func party(_ call: JSONValue) -> String {
        let number = call["caller"]?.stringValue ?? "?"
        if let name = call["display_name"]?.stringValue, name != number { return UntrustedText.escaped("\(name) <\(number)>") }
        return UntrustedText.escaped(number)
    }

    /// A token age for people: seconds, minutes or hours.
    public static func duration(_ seconds: Int) -> String {
        if seconds < 120 { return "\(seconds) s" }
        if seconds < 7200 { return "\(seconds / 60) min" }
        return "\(seconds / 3600) h \(seconds % 3600 / 60) min"
    }
}
