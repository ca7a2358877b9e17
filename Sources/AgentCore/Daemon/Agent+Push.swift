import FoundationEssentials
import MainLoop
import WCSSession

/// Push handling of `Agent` (on the agent actor): wake once per pushed call id, then ring the call
/// if the server replays it, or record it as missed while asleep.
extension Agent {
    /// Seconds a push waits after the wake for the server to replay the pushed call (the replay
    /// arrives within milliseconds of `getUserData`; this only covers event delivery).
    static let pushReplayGrace: Double = 0.5

    /// Handles a push (`reconnect --payload`, the webhook, MQTT): wakes the agent once per call id,
    /// across restarts (the durable `pushLedger`); if the pushed call is there it rings as usual, if
    /// it ended before the session came back it is recorded as `missed_while_asleep`, published as
    /// `missed_call` and never rung. When the session does not come back the call id is released,
    /// so the sender's retry wakes again. Every push is answered with a `push` event.
    public func wake(push: PushPayload, source: PushSource) async -> PushWakeResult {
        guard !announcedCallIds.contains(push.callId), pushLedger.take(push, source: source.rawValue).isNew else {
            Log.info("push", "push for call \(push.callId) (\(source.rawValue)): already seen, not waking again")
            return answered(PushWakeResult(outcome: .duplicate, wake: nil), push, source)
        }
        let result = await wake(taken: push, source: source)
        if result.outcome == .notConnected { pushLedger.release(push.callId) }
        return result
    }

    /// Handles a push already recorded as taken in `pushLedger` (by the MQTT intake before it
    /// acknowledges the message, or left pending by a process that stopped). A push whose session
    /// did not come back stays taken: the caller retries it (`TakenPushDelivery`).
    public func wake(taken push: PushPayload, source: PushSource) async -> PushWakeResult {
        let received = Date()
        Log.info("push", "push for call \(push.callId) from \(push.handle ?? "?") (\(source.rawValue))")
        let result = await wake(reason: "push for call \(push.callId)")
        guard phase == .online else {
            return answered(PushWakeResult(outcome: .notConnected, wake: result), push, source)
        }
        if await announcement(of: push.callId, within: Self.pushReplayGrace) {
            // The resume does not wait for replays: a call replayed after its outcome refines it here.
            let refined: WakeResult = result == .resumed ? .resumedWithPendingCall : result
            let outcome = await fateOfPushedCall(push.callId)
            pushLedger.finish(push.callId, outcome: outcome.rawValue)
            return answered(PushWakeResult(outcome: outcome, wake: refined), push, source)
        }
        recordMissed(push, received: received)
        pushLedger.finish(push.callId, outcome: PushOutcome.missed.rawValue)
        return answered(PushWakeResult(outcome: .missed, wake: result), push, source)
    }

    /// Publishes a payload that is not a push (`push` event with outcome `invalid`).
    public func refusedPush(source: PushSource, reason: String) {
        Log.warning("push", "\(source.rawValue): \(reason)")
        publishEvent(.push(source: source.rawValue, callId: nil, push: "invalid", outcome: nil))
    }

    /// Publishes the `push` event of `result` and returns it.
    private func answered(_ result: PushWakeResult, _ push: PushPayload, _ source: PushSource) -> PushWakeResult {
        publishEvent(.push(source: source.rawValue, callId: push.callId, push: result.outcome.rawValue, outcome: result.wake?.rawValue))
        return result
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
