import AgentCore
import FoundationEssentials

/// Turns a `PromptState` into the lines of the live status block (no escape codes, no width limit).
enum PromptView {
    /// Key help shown while a call is up.
    static let callKeys = "[h]ang up  [p] hold/resume  [m]ute  [t]ransfer  0-9*# DTMF  [q] detach"

    /// The status block: the connection line, then one line per call, then the key help.
    static func lines(_ state: PromptState, now: Date) -> [String] {
        var lines = [connectionLine(state)]
        for call in state.calls {
            lines.append(callLine(call, state: state, now: now))
        }
        if let input = state.transferInput {
            lines.append("Transfer \(state.describe(input.callId)) to: \(input.text)_   (Enter sends, Esc cancels)")
        } else if state.calls.contains(where: { $0.isActive || $0.direction == "outgoing" }) {
            lines.append(callKeys)
        }
        return lines
    }

    /// The block without its timers: it changes only when something happened (for line mode).
    static func signature(_ state: PromptState, now: Date) -> [String] {
        lines(state, now: now).map { line in
            line.replacing(#/\(\d+ s\)|\b\d+:\d\d(:\d\d)?\b/#.wordBoundaryKind(.simple), with: "")
        }
    }

    static func connectionLine(_ state: PromptState) -> String {
        var text = "wcs-agent: \(state.connection.replacing("_", with: " "))"
        if state.connection == "online" { text += state.registered ? " (registered)" : " (not registered)" }
        if state.connection != "online", let error = state.lastError { text += ": \(error)" }
        if state.calls.isEmpty { text += "   no calls   [q] detach" }
        return text
    }

    static func callLine(_ call: PromptCall, state: PromptState, now: Date) -> String {
        if call.isRingingIn {
            let left = Int(state.ringSecondsLeft(call, now: now).rounded(.up))
            return "Incoming call from \(call.party)  [a]nswer  [d]ecline  (\(left) s)"
        }
        if call.isActive {
            var text = "Call with \(call.party)  \(state.talkSeconds(call, now: now).map(PromptTime.clock) ?? "0:00")"
            if call.muted == true { text += "  [muted]" }
            if call.isOnHold { text += "  [on hold]" }
            return text
        }
        if call.direction == "outgoing" { return "Calling \(call.party)  (\(call.status.wire.lowercased()))" }
        return "Call with \(call.party)  (\(call.status.wire.lowercased()))"
    }
}
