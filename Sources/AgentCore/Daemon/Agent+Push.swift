import FoundationEssentials
import MainLoop
import WCSSession

/// Push handling of `Agent` (on the agent actor): wake once per pushed call id, then ring the call
/// if the server replays it, or record it as missed while asleep.
extension Agent {
    /// Seconds a push waits after the wake for the server to replay the pushed call (the replay
    /// arrives within milliseconds of `getUserData`; this only covers event delivery).
    static let pushReplayGrace: Double = 0.5

    /// Handles a push (`reconnect --payload`, the webhook): wakes the agent once per call id; if the
    /// pushed call is there it rings as usual, if it ended before the session came back it is
    /// recorded as `missed_while_asleep`, published as `missed_call` and never rung.
    public func wake(push: PushPayload) async -> PushWakeResult {
        let received = Date()
        guard !announcedCallIds.contains(push.callId), pushedCallIds.insert(push.callId) else {
            Log.info("push", "push for call \(push.callId): already seen, not waking again")
            return PushWakeResult(outcome: .duplicate, wake: nil)
        }
        Log.info("push", "push for call \(push.callId) from \(push.handle ?? "?")")
        let result = await wake(reason: "push for call \(push.callId)")
        guard phase == .online else {
            pushedCallIds.remove(push.callId)
            return PushWakeResult(outcome: .notConnected, wake: result)
        }
        if await announcement(of: push.callId, within: Self.pushReplayGrace) {
            // The resume does not wait for replays: a call replayed after its outcome refines it here.
            let refined: WakeResult = result == .resumed ? .resumedWithPendingCall : result
            return PushWakeResult(outcome: await fateOfPushedCall(push.callId), wake: refined)
        }
        recordMissed(push, received: received)
        return PushWakeResult(outcome: .missed, wake: result)
    }

    /// What the reply to a push says of its announced call (issue 19, invariant c: the reply tells
    /// what happened to that call): `ringing` only if it rings (or was answered) here; a call still
    /// waiting for its offer gets `CallManager.offerGrace` to ring or end.
    private func fateOfPushedCall(_ callId: String) async -> PushOutcome {
        let deadline = Date().addingTimeInterval(CallManager.offerGrace + 0.5)
        while true {
            switch await callManager.fate(of: callId) {
            case .live(.ringing, hasOffer: false) where Date() < deadline:
                try? await Task.sleep(for: .milliseconds(50))
            case .ended(.answeredElsewhere): return .answeredElsewhere
            case .live(.ending, _), .ended: return .ended
            case .live, .unknown: return .ringing
            }
        }
    }

    /// Records that the server announced `callId` (live or replayed) and wakes the pushes waiting for it.
    func announced(_ callId: String) {
        _ = announcedCallIds.insert(callId)
        for waiter in announcementWaiters.removeValue(forKey: callId) ?? [] { waiter.resume(returning: true) }
    }

    /// Whether `callId` is announced within `seconds`: returns as soon as it is (no polling tick).
    private func announcement(of callId: String, within seconds: Double) async -> Bool {
        if announcedCallIds.contains(callId) { return true }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .seconds(seconds))
            await self?.announcementTimedOut(callId)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { announcementWaiters[callId, default: []].append($0) }
    }

    private func announcementTimedOut(_ callId: String) {
        for waiter in announcementWaiters.removeValue(forKey: callId) ?? [] { waiter.resume(returning: false) }
    }

    private func recordMissed(_ push: PushPayload, received: Date) {
        Log.notice("push", "call \(push.callId) from \(push.handle ?? "?") ended before the session came back: missed while asleep")
        let record = CallRecord(callId: push.callId, direction: "incoming", caller: push.handle, callee: config.sipLogin,
                                displayName: nil, started: received, answered: nil, ended: Date(),
                                endResult: .missedWhileAsleep, info: "ended before the session came back")
        do {
            try CallRecordStore(directory: config.stateDir).append(record)
        } catch {
            Log.error("push", "cannot record the missed call \(push.callId): \(error)")
        }
        publishEvent(.missedCall(callId: push.callId, caller: push.handle, uuid: push.uuid))
    }
}
