import AudioPipe
import FoundationEssentials
import MainLoop

/// What `on_incoming` printed: the caller's display name and, optionally, an answer decision
/// (a line `answer: auto|after:N|manual|reject`, see `AnswerRuleSet`).
struct IncomingHookResult: Sendable, Equatable {
    var displayName: String?
    var decision: AnswerAction?
}

/// The `[hooks]` commands: `on_incoming` (its first output line becomes the caller's display
/// name, like a contact lookup; a line `answer: ACTION` decides how the call is answered) and `on_call_end`. Each runs via /bin/sh with the call's details
/// in `WCS_*` variables plus PATH, HOME, LANG and TZ; nothing else from our environment and never
/// a secret. The far end's text in them (call id, numbers, display name) is escaped
/// (`UntrustedText`: no control or bidi character, no NUL to cut a value short), and `WCS_CALL_KEY`
/// is the call id as a unique, safe file name stem (`SafeFileName`: what a script should name files by). A failing, hanging or missing hook is logged and killed at its timeout; it never
/// delays a call.
struct CallHooks: Sendable {
    let onIncoming: String?
    let onCallEnd: String?
    let timeout: Double

    init(config: AgentConfig) {
        onIncoming = config.hookOnIncoming
        onCallEnd = config.hookOnCallEnd
        timeout = config.hookTimeout
    }

    /// Runs `on_incoming`; returns the display name it printed (first line that is not a decision,
    /// trimmed, at most 100 characters) and its decision; both nil when it printed nothing, failed or timed out.
    func incoming(callId: String, caller: String?, callee: String?, displayName: String?) async -> IncomingHookResult {
        guard let command = onIncoming else { return IncomingHookResult() }
        let env = Self.environment(["WCS_CALL_ID": callId, "WCS_CALLER": caller, "WCS_CALLEE": callee,
                                    "WCS_DISPLAY_NAME": displayName, "WCS_DIRECTION": "incoming"], callId: callId)
        let outcome = await HookProcess.run(command, environment: env, timeout: timeout)
        guard outcome.succeeded else {
            Log.warning("hooks", "on_incoming for call \(callId) failed (\(outcome.summary)); the call goes on without it")
            return IncomingHookResult()
        }
        let name = Self.displayName(from: outcome.output)
        var decision: AnswerAction?
        switch AnswerRuleSet.hookDecision(in: outcome.output) {
        case .success(let action)?: decision = action
        case .failure(let error)?: Log.warning("hooks", "on_incoming for call \(callId) printed an answer line that does not parse: \(error)")
        case nil: break
        }
        Log.info("hooks", "on_incoming for call \(callId): \(name.map { "display name \"\($0)\"" } ?? "no display name")"
            + (decision.map { ", answer \($0)" } ?? ""))
        return IncomingHookResult(displayName: name, decision: decision)
    }

    /// Runs `on_call_end` for a finished call (fire and forget).
    func callEnded(_ record: CallRecord) {
        guard let command = onCallEnd else { return }
        let env = Self.environment([
            "WCS_CALL_ID": record.callId, "WCS_CALLER": record.caller, "WCS_CALLEE": record.callee,
            "WCS_DISPLAY_NAME": record.displayName, "WCS_DIRECTION": record.direction,
            "WCS_END_RESULT": record.endResult.rawValue, "WCS_DURATION": String(record.duration),
            "WCS_RECORDING": record.recording,
        ], callId: record.callId)
        let timeout = self.timeout
        Task.detached {
            let outcome = await HookProcess.run(command, environment: env, timeout: timeout)
            if outcome.succeeded {
                Log.debug("hooks", "on_call_end for call \(record.callId) done")
            } else {
                Log.warning("hooks", "on_call_end for call \(record.callId) failed (\(outcome.summary))")
            }
        }
    }

    /// The first non-empty output line, trimmed, control, bidi and format characters removed
    /// (`UntrustedText.isUnsafe`), at most 100 characters.
    static func displayName(from output: String) -> String? {
        guard let line = output.split(whereSeparator: \.isNewline).lazy
            .map({ $0.trimmingSpaces() }).first(where: { !$0.isEmpty && !AnswerRuleSet.isDecisionLine($0) }) else { return nil }
        let clean = String(String.UnicodeScalarView(line.unicodeScalars.filter { !UntrustedText.isUnsafe($0) }))
        return clean.isEmpty ? nil : String(clean.prefix(100))
    }

    /// A clean environment: a few harmless variables of ours plus the call's `WCS_*` values (escaped,
    /// but for `WCS_RECORDING`, our own path) and `WCS_CALL_KEY`.
    static func environment(_ call: [String: String?], callId: String? = nil) -> [String: String] {
        var env = ShellCommand.cleanEnvironment()
        for (key, value) in call { env[key] = key == "WCS_RECORDING" ? value ?? "" : UntrustedText.escaped(value ?? "") }
        if let callId { env["WCS_CALL_KEY"] = SafeFileName.stem(for: callId) }
        return env
    }
}
