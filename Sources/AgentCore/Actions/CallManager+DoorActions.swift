import AudioPipe
import FoundationEssentials
import MainLoop
import SystemSupport
import WCSJSON

/// DTMF keys from every source, once each, matched against the `[actions]` codes: the action
/// runs (a command with a clean environment, or a built-in), a tone confirms it, wrong entries
/// are counted per call and per caller, and everything is an `action` event and part of the call
/// record. Codes never reach a log, an event or a command's argv. Part of the `CallManager` actor.
extension CallManager {
    /// A key press reported by `source` for `callId`.
    func dtmfKey(_ key: Character, source: DTMFKeySource, callId: String) {
        let now = MonotonicTime.now()
        guard let call = calls[callId], call.state.isLive else { return }
        calls[callId]?.door.merger.window = config.door.mergeWindow
        guard calls[callId]?.door.merger.accept(key, from: source, at: now) == true else {
            Log.debug("calls", "call \(callId): a key from \(source.rawValue) is a press already reported by another source")
            return
        }
        let door = config.door
        Log.debug("actions", "call \(callId): a key by \(source.rawValue)")  // never the key: codes are secrets
        publish(.dtmf(callId: callId, digit: door.digitsInEvents ? String(key) : "hidden"))
        guard !door.actions.isEmpty, call.state.isTalking else { return }
        let caller = call.caller ?? ""
        if lockouts.isLocked(caller, at: now) || call.door.keysIgnored {
            calls[callId]?.door.entry.clear()
            return
        }
        let outcome = calls[callId]!.door.entry.press(key, at: now, codes: door.actions.map(\.code.value), timeout: door.entryTimeout)
        switch outcome {
        case .pending:
            return
        case .matched(let index, let keys):
            let action = door.actions[index]
            if action.allows(caller: call.caller) {
                fire(action, callId: callId, source: source, keys: keys)
            } else {
                Log.notice("actions", "call \(callId): caller \(UntrustedText.escaped(caller)) entered the code of [actions.\(action.name)], which it may not use")
                wrongEntry(callId, caller: caller, source: source, keys: keys, result: "not_allowed", action: action.name, at: now)
            }
        case .wrong(let keys):
            wrongEntry(callId, caller: caller, source: source, keys: keys, result: "wrong_code", action: nil, at: now)
        }
    }

    /// Counts a wrong entry; plays the error tone; locks the call and the caller out at their limits.
    private func wrongEntry(_ callId: String, caller: String, source: DTMFKeySource, keys: Int, result: String, action: String?, at now: Double) {
        let door = config.door
        calls[callId]?.door.wrongEntries += 1
        let count = calls[callId]?.door.wrongEntries ?? 0
        var detail = "wrong entry \(count) of \(door.maxWrongPerCall) on this call"
        Log.warning("actions", "call \(callId): wrong code (\(keys) keys, \(source.rawValue)) from \(UntrustedText.escaped(caller)): \(detail)")
        if count >= door.maxWrongPerCall {
            calls[callId]?.door.keysIgnored = true
            detail += "; the call's keys are ignored from now on"
            Log.warning("actions", "call \(callId): \(count) wrong codes; ignoring the rest of this call's keys")
        }
        if lockouts.recordWrong(caller, at: now, limit: door.maxWrongPerCaller, window: door.callerWindow, lockout: door.lockout) {
            detail += "; caller locked out for \(Int(door.lockout)) s"
            Log.warning("actions", "caller \(UntrustedText.escaped(caller)) locked out for \(Int(door.lockout)) s after \(door.maxWrongPerCaller) wrong codes "
                + "within \(Int(door.callerWindow)) s")
        }
        playTone(.error, callId: callId)
        noteAction(callId, action: action, result: result, source: source, keys: keys, detail: detail)
    }

    /// Runs a matched action: the tone, the command or built-in, the optional hang-up after.
    private func fire(_ action: DoorAction, callId: String, source: DTMFKeySource, keys: Int) {
        Log.notice("actions", "call \(callId): [actions.\(action.name)] fired (\(action.run), \(keys) keys by \(source.rawValue))")
        noteAction(callId, action: action.name, result: "fired", source: source, keys: keys, detail: nil, record: false)
        let caller = calls[callId]?.caller
        switch action.run {
        case .command(let command):
            let env = CallHooks.environment(["WCS_CALL_ID": callId, "WCS_CALLER": caller, "WCS_ACTION": action.name,
                                             "WCS_DTMF_SOURCE": source.rawValue, "WCS_CALLEE": calls[callId]?.callee])
            let timeout = config.hookTimeout
            Task { [weak self] in
                let outcome = await HookProcess.run(command, environment: env, timeout: timeout)
                await self?.commandFinished(action, callId: callId, source: source, keys: keys, outcome: outcome)
            }
            return
        case .hangup:
            if action.tone { playTone(.ok, callId: callId) }
            noteAction(callId, action: action.name, result: "ok", source: source, keys: keys, detail: nil)
            Task { [weak self] in
                try? await Task.sleep(for: .milliseconds(action.tone ? 400 : 0))
                _ = try? await self?.hangup(callId)
            }
            return
        case .hold:
            if action.tone { playTone(.ok, callId: callId) }
            Task { [weak self] in
                try? await Task.sleep(for: .milliseconds(action.tone ? 400 : 0))
                await self?.holdForAction(action, callId: callId, source: source, keys: keys)
            }
            return
        case .extend:
            let extended = extendLimit(callId)
            if action.tone { playTone(extended ? .ok : .error, callId: callId) }
            noteAction(callId, action: action.name, result: extended ? "extended" : "failed", source: source, keys: keys,
                       detail: extended ? "call time extended by \(Int(config.door.extendBy)) s" : "the call has no time limit")
        }
        scheduleHangup(after: action, callId: callId)
    }

    private func holdForAction(_ action: DoorAction, callId: String, source: DTMFKeySource, keys: Int) async {
        do {
            _ = try await hold(callId)
            noteAction(callId, action: action.name, result: "ok", source: source, keys: keys, detail: nil)
        } catch {
            noteAction(callId, action: action.name, result: "failed", source: source, keys: keys, detail: "\(error)")
        }
        scheduleHangup(after: action, callId: callId)
    }

    private func commandFinished(_ action: DoorAction, callId: String, source: DTMFKeySource, keys: Int, outcome: HookOutcome) {
        let ok = outcome.succeeded
        if ok {
            Log.notice("actions", "call \(callId): [actions.\(action.name)] done")
        } else {
            Log.warning("actions", "call \(callId): [actions.\(action.name)] failed (\(outcome.summary))")
        }
        if action.tone { playTone(ok ? .ok : .error, callId: callId) }
        noteAction(callId, action: action.name, result: ok ? "ok" : "failed", source: source, keys: keys, detail: outcome.summary)
        scheduleHangup(after: action, callId: callId)
    }

    /// `hangup_after`: the call ends that many seconds after the action.
    private func scheduleHangup(after action: DoorAction, callId: String) {
        guard let seconds = action.hangupAfter, calls[callId] != nil else { return }
        calls[callId]?.door.hangupTask?.cancel()
        calls[callId]?.door.hangupTask = Task { [weak self] in
            try? await Task.sleep(for: .seconds(seconds))
            guard !Task.isCancelled, let self else { return }
            Log.info("actions", "call \(callId): hanging up \(seconds) s after [actions.\(action.name)]")
            _ = try? await self.hangup(callId)
        }
    }

    /// Publishes an `action` event and (unless `record` is false) keeps it for the call record.
    func noteAction(_ callId: String, action: String?, result: String, source: DTMFKeySource?, keys: Int?, detail: String?,
                    record: Bool = true) {
        let entry = CallActionRecord(time: AgentClock.iso(Date()), action: action, result: result, source: source?.rawValue,
                                     keys: keys, detail: detail)
        if record { calls[callId]?.door.actions.append(entry) }
        publish(.action(CallActionReport(callId: callId, action: action, result: result, source: source?.rawValue,
                                         keys: keys, caller: calls[callId]?.caller, detail: detail)))
    }

    /// Plays one of the door tones into the call (nothing when the call has no prompt stage).
    func playTone(_ tone: PromptTone, callId: String) {
        calls[callId]?.media?.stage(of: CallPromptStage.self)?.play(tone.samples, mode: .mix)
    }
}


extension CallManager {
    /// Keys the server relayed (SIP INFO at the far end), each a press.
    func relayedDTMF(_ digits: String, callId: String) {
        for key in digits { dtmfKey(key, source: .sipInfo, callId: callId) }
    }
}
