import AudioPipe
import FoundationEssentials
import MainLoop
import WCSSession

/// The end of a call: the `call_ended` event, the classification and the record in calls.jsonl;
/// and the list of calls. Part of the `CallManager` actor.
extension CallManager {
    /// What became of call `id` so far (a push's reply): live in a state (and whether its offer
    /// came), ended with a result, or not seen.
    func fate(of id: String) -> CallFate {
        if let call = calls[id] { return .live(call.state, hasOffer: call.offer != nil) }
        if let result = recentlyEnded.result(of: id) { return .ended(result) }
        return .unknown
    }

    /// Every call, oldest first, for `status` and `calls`.
    func list() -> [CallSummary] {
        calls.values.sorted { $0.started < $1.started }.map(\.summary)
    }

    /// Ends every call: the session that carried them is gone (a new session after a resume
    /// failed, or the token was refused). Each call that started before `lostAt` is recorded as
    /// connection_lost (calls of the new session are kept).
    func sessionLost(reason: String, lostAt: Date) {
        for id in calls.keys.sorted() where calls[id]!.started <= lostAt {
            publish(.callStatus(CallDescription(callId: id, direction: nil, status: CallStatus.finish.wire, started: nil, info: reason)))
            apply(id, .sessionLost, cause: .connectionLost, info: reason)
        }
    }

    /// Removes the call from the table, closes its media, publishes `call_ended` and records it.
    func finish(_ callId: String, status: CallStatus, info: String?) {
        guard var call = calls.removeValue(forKey: callId) else { return }
        let ended = Date()
        let result = CallEndClassifier.classify(facts(call, status: status, info: info, ended: ended))
        // A call of a lost session may still ring at the server: announced again, it rings again.
        if call.endCause != .connectionLost { recentlyEnded.insert(callId, result) }
        call.state = .ended
        call.answerTask?.cancel()
        call.offerWaitTask?.cancel()
        call.expiryTask?.cancel()
        call.door.cancelTimers()
        var stats: CallMediaStatistics?
        if let media = call.media {
            stats = media.statistics()
            media.close()
        }
        publish(.callEnded(CallEndReport(
            callId: callId, direction: call.direction.rawValue, status: status.wire, declined: call.endCause == .declinedByUs,
            info: info, stats: stats.map(Self.json), recording: call.recordingPath,
            durationSeconds: call.answeredAt.map { (ended.timeIntervalSince($0) * 10).rounded() / 10 },
            endResult: result.rawValue, displayName: call.displayName)))
        var failure: String?
        if case .mediaFailure(let reason)? = call.endCause { failure = reason }
        var record = CallRecord(callId: callId, direction: call.direction.rawValue, caller: call.caller, callee: call.callee,
                                displayName: call.displayName, started: call.started, answered: call.answeredAt, ended: ended,
                                endResult: result,
                                info: failure ?? info ?? Self.recordInfo(call.endCause),
                                media: stats.map(Self.record), recording: call.recordingPath)
        if !call.door.actions.isEmpty { record.actions = call.door.actions }
        let hooks = self.hooks, written = record
        journal.write(written) { hooks.callEnded(written) }
    }

    private func facts(_ call: CallEntry, status: CallStatus, info: String?, ended: Date) -> CallEndFacts {
        var f = CallEndFacts(direction: call.direction, status: status, info: info, answered: call.answeredAt != nil,
                             ringSeconds: ended.timeIntervalSince(call.started), ringTimeout: config.ringTimeout)
        switch call.endCause {
        case .declinedByUs?: f.declinedByUs = true
        case .rejectedAsBusy?: f.rejectedAsBusy = true
        case .hungUpByUs?: f.hungUpByUs = true
        case .mediaFailure(let reason)?: f.mediaFailure = reason
        case .connectionLost?: f.connectionLost = true
        case .answeredElsewhere?: f.answeredElsewhere = true
        case .ringExpired?, .hungUpAfterAnswer?, .peerClosedMedia?, nil: break
        }
        return f
    }

    /// The record's info for an end we caused, when the server gave none.
    private static func recordInfo(_ cause: CallEndCause?) -> String? {
        switch cause {
        case .rejectedAsBusy?: "busy: max_calls reached"
        case .peerClosedMedia?: "the far end closed its media (DTLS close_notify)"
        default: nil
        }
    }
}
