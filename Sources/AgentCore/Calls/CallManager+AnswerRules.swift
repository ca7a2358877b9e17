import FoundationEssentials
import MainLoop
import WCSSession

/// How a new ringing call is answered: the `[answer]` rules (first match; caller, display name,
/// time of day), the `on_incoming` hook's own decision, or `[audio] answer`. Part of the
/// `CallManager` actor; `AnswerRuleSet` is the pure part.
///
/// Without `[answer]` nothing changes from before: the mode is `[audio] answer`, armed at once,
/// and the hook only names the caller. With `[answer]` and the hook (`hook = yes`, the default)
/// the decision waits for the hook (at most its timeout) so that `name` patterns see its display
/// name and an `answer: ACTION` line can decide; the call rings meanwhile and can be answered by hand.
extension CallManager {
    /// Decides for the new call `info` (and starts `on_incoming`, if set).
    func chooseAnswer(_ info: CallInfo) {
        let id = info.callId
        let rules = config.answerRules
        let waits = hooks.onIncoming != nil && rules.isConfigured && rules.consultsHook
        if waits {
            calls[id]?.answerPending = true
        } else {
            decided(rules.isConfigured ? rules.decide(caller: info.caller, displayName: info.visibleName, fallback: config.answerMode) : nil, id)
        }
        guard hooks.onIncoming != nil else { return }
        let hooks = self.hooks
        Task { [weak self] in
            let result = await hooks.incoming(callId: id, caller: info.caller, callee: info.callee, displayName: info.visibleName)
            await self?.hookFinished(result, callId: id)
        }
    }

    /// `on_incoming` is done: its name goes on the call; a waiting decision is made now.
    private func hookFinished(_ result: IncomingHookResult, callId id: String) {
        if let name = result.displayName { setDisplayName(name, callId: id) }
        guard let call = calls[id], call.answerPending else {
            if result.decision != nil { Log.notice("calls", "call \(id): on_incoming's answer line ignored ([answer] hook is off or absent)") }
            return
        }
        calls[id]?.answerPending = false
        guard call.state == .ringing else { return }
        let decision = result.decision.map { AnswerRuleSet.Decision(action: $0, source: "on_incoming") }
            ?? config.answerRules.decide(caller: call.caller, displayName: call.displayName, fallback: config.answerMode)
        decided(decision, id)
    }

    /// Applies a decision (nil: `[audio] answer`): arms the auto-answer, or declines as busy.
    private func decided(_ decision: AnswerRuleSet.Decision?, _ id: String) {
        if let decision {
            Log.info("calls", "call \(id) from \(calls[id]?.caller ?? "?"): \(decision.source) decides \(decision.action)")
            switch decision.action {
            case .reject: return rejectByRule(id, decision.source)
            case .answer(let mode): calls[id]?.answerMode = mode
            }
        }
        if calls[id]?.offer != nil { scheduleAutoAnswer(id) }
    }

    /// Declines the call at once as busy, because a rule or the hook said `reject`.
    private func rejectByRule(_ id: String, _ source: String) {
        let caller = calls[id]?.caller
        Log.notice("calls", "call \(id) from \(caller ?? "?") declined as busy (\(source))")
        publish(.callRejected(callId: id, reason: "rule", caller: caller, maxCalls: config.maxCalls))
        apply(id, .rejectBusy, cause: .rejectedAsBusy)
    }
}
