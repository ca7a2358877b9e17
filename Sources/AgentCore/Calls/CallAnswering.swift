import AudioPipe
import FoundationEssentials
import MainLoop
import WCSSession

/// Answering, declining, hanging up and placing calls, and the timers of a ringing call
/// (auto-answer, the wait for a late offer, the local ring expiry). Part of the `CallManager` actor.
extension CallManager {
    /// Answers `callId`, or the oldest ringing incoming call. The move to `answering` happens
    /// before the first suspension, so a second answer of the same call is refused.
    func answer(_ callId: String?) async throws(AgentError) -> String {
        let id = try pick(callId, "answer", lifecycleDecides: true) { $0.direction == .incoming && $0.state == .ringing }
        guard calls[id]?.direction == .incoming else { throw AgentError("cannot answer call \(id): it is outgoing") }
        if calls[id]?.state == .ringing, calls[id]?.offer == nil {
            throw AgentError("cannot answer call \(id): no usable SDP offer from the server (yet)")
        }
        try move(id, .answer, verb: "answer")
        guard let offer = calls[id]?.offer else { throw AgentError("call \(id) has no SDP offer from the server") }
        calls[id]?.answerRequestedAt = Date()
        calls[id]?.answerTask?.cancel()
        calls[id]?.answerTask = nil
        await holdOthers(except: id)
        let media: CallMedia
        do {
            let opened = try makeMedia(callId: id, controlling: false)
            media = opened.0
            calls[id]?.recordingPath = opened.1
            calls[id]?.voice = opened.2
        } catch {
            apply(id, .failed, cause: .mediaFailure("cannot open audio: \(error)"))
            throw AgentError("call \(id): cannot open audio: \(error)")
        }
        guard calls[id]?.state == .answering else {
            media.close()
            throw AgentError("call \(id) ended while it was being answered")
        }
        calls[id]?.media = media
        Log.info("calls", "call \(id): media session opened")
        watch(media, callId: id)
        do {
            let answer = try await media.answer(offer: offer)
            guard calls[id]?.state == .answering else { throw AgentError("the call ended while it was being answered") }
            // Moved before the frame goes: from here an ESTABLISHED is the answer to ours, before
            // it the call was answered by another device (`statusChanged`).
            _ = try? move(id, .answerSent)
            try await session.answer(callId: id, sdp: answer)
        } catch {
            Log.error("calls", "call \(id): cannot answer: \(error)")
            apply(id, .failed, cause: .mediaFailure("cannot answer: \(error)"))
            throw AgentError("call \(id): cannot answer: \(error)")
        }
        Log.info("calls", "answered call \(id)")
        return id
    }

    /// Declines a ringing incoming call.
    func decline(_ callId: String?) async throws(AgentError) -> String {
        let id = try pick(callId, "decline", lifecycleDecides: true) { $0.direction == .incoming && $0.state == .ringing }
        try await hangUp(id, verb: "decline", cause: .declinedByUs)
        return id
    }

    /// Ends a call (talking first, then ringing or outgoing).
    func hangup(_ callId: String?) async throws(AgentError) -> String {
        let talking = callId == nil && calls.values.contains { $0.state.isTalking }
        let id = try pick(callId, "hang up", lifecycleDecides: true) { $0.state.isLive && (!talking || $0.state.isTalking) }
        try await hangUp(id, verb: "hang up", cause: calls[id]?.answeredAt == nil ? .hungUpByUs : .hungUpAfterAnswer)
        return id
    }

    /// Hangs up every call (a retiring agent).
    func hangupAll() async {
        for id in calls.keys.sorted() {
            try? await hangUp(id, verb: "hang up", cause: calls[id]?.answeredAt == nil ? .hungUpByUs : .hungUpAfterAnswer)
        }
    }

    /// Seconds the server gets to end a call whose far end closed its media (DTLS close_notify)
    /// before we hang it up ourselves: a SIP BYE and the close usually arrive together.
    static let peerClosedGrace = 2.0

    /// Hangs up a call whose far end closed its media, unless it already ended or is ending. Like
    /// a media timeout: the hangup is best effort (the socket may be detached) and the call ends
    /// locally after `endingGrace` if the server never confirms.
    func hangUpAfterPeerClosedMedia(_ id: String) {
        guard calls[id]?.state.isLive == true else { return }
        Log.warning("calls", "call \(id): the server did not end the call \(Self.peerClosedGrace) s after its media closed; hanging up")
        apply(id, .failed, cause: .peerClosedMedia)
    }

    /// The verb side of `hangup`: the move (refused if the call is already ending), then the frame;
    /// if the frame cannot be sent the call goes back to where it was.
    private func hangUp(_ id: String, verb: String, cause: CallEndCause) async throws(AgentError) {
        let before = calls[id]?.state
        try move(id, verb == "decline" ? .decline : .hangup, verb: verb)
        calls[id]?.noteEnd(cause)
        do { try await session.hangup(callId: id) } catch {
            if calls[id]?.state == .ending, let before {
                calls[id]?.state = before
                calls[id]?.endCause = nil
            }
            throw AgentError("\(error)")
        }
        awaitFinalStatus(id)
    }

    /// Places an outgoing call with the configured audio.
    func call(_ number: String) async throws(AgentError) -> String {
        let id = UUID().uuidString.lowercased()
        let media: CallMedia
        let recordingPath: String?
        let voice: VoiceProcessingStage?
        do {
            (media, recordingPath, voice) = try makeMedia(callId: id, controlling: true)
        } catch {
            throw AgentError("cannot open audio: \(error)")
        }
        var entry = CallEntry(callId: id, direction: .outgoing, state: .connectingMedia, serverStatus: .pending,
                              caller: nil, callee: number, displayName: nil)
        entry.media = media
        entry.voice = voice
        entry.answerRequestedAt = Date()
        entry.recordingPath = recordingPath
        calls[id] = entry
        watch(media, callId: id)
        do {
            let offer = try await media.makeOffer()
            try await session.call(callee: number, sdp: offer, callId: id)
        } catch {
            media.close()
            calls[id] = nil
            throw AgentError("cannot call \(number): \(error)")
        }
        return id
    }

    // MARK: - Timers of a ringing call

    /// Arms the auto-answer of a ringing call with an offer, as its answer mode says (the one
    /// `chooseAnswer` picked, else `[audio] answer`); nothing while the decision waits for the hook.
    func scheduleAutoAnswer(_ callId: String) {
        guard let call = calls[callId], !call.answerPending else { return }
        let delay: Double
        switch call.answerMode ?? config.answerMode {
        case .manual: return
        case .auto: delay = 0
        case .after(let s): delay = s
        }
        calls[callId]?.answerTask?.cancel()
        calls[callId]?.answerTask = Task { [weak self] in
            if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
            guard !Task.isCancelled, let self else { return }
            do { _ = try await self.answer(callId) } catch {
                Log.warning("calls", "auto-answer of \(callId) failed: \(error)")
            }
        }
    }

    /// A call announced without a usable offer gets `offerGrace` seconds for a late one, then is
    /// hung up (once) and ended locally: it could never be answered.
    func awaitOffer(_ callId: String) {
        calls[callId]?.offerWaitTask = Task { [weak self] in
            try? await Task.sleep(for: .seconds(Self.offerGrace))
            guard !Task.isCancelled, let self else { return }
            await self.offerMissing(callId)
        }
    }

    private func offerMissing(_ callId: String) {
        guard let call = calls[callId], call.offer == nil, call.state == .ringing else { return }
        let reason = "no usable SDP offer from the server"
        Log.warning("calls", "call \(callId) from \(call.caller ?? "?"): \(reason); hanging up")
        publish(.mediaFailed(callId: callId, reason: reason))
        apply(callId, .unusableOffer, cause: .mediaFailure(reason), info: reason)
    }

    /// A ringing call ends locally `ringExpiryGrace` seconds after the ring timeout, even if the
    /// server never ends it.
    func scheduleRingExpiry(_ callId: String) {
        let limit = config.ringTimeout + Self.ringExpiryGrace
        calls[callId]?.expiryTask = Task { [weak self] in
            try? await Task.sleep(for: .seconds(limit))
            guard !Task.isCancelled, let self else { return }
            await self.ringExpired(callId, after: limit)
        }
    }

    private func ringExpired(_ callId: String, after seconds: Double) {
        guard calls[callId]?.state == .ringing else { return }
        let info = "rang \(Int(seconds)) s without an answer; ended locally"
        Log.notice("calls", "call \(callId): \(info)")
        apply(callId, .ringExpired, cause: .ringExpired, info: info)
    }

    /// The call `callId` names, or the oldest eligible one. A named call must be eligible too,
    /// unless `lifecycleDecides` (answer, decline, hangup: `CallLifecycle` refuses with its reason).
    func pick(_ callId: String?, _ verb: String, lifecycleDecides: Bool = false,
              _ eligible: (CallEntry) -> Bool) throws(AgentError) -> String
    {
        if let callId {
            guard let call = calls[callId] else { throw AgentError("no call \(callId)") }
            guard lifecycleDecides || eligible(call) else {
                throw AgentError("cannot \(verb) call \(callId): it is \(call.serverStatus.wire.lowercased())")
            }
            return callId
        }
        let candidates = calls.values.filter(eligible).sorted { $0.started < $1.started }
        if let first = candidates.first { return first.callId }
        throw AgentError("no call to \(verb)")
    }
}
