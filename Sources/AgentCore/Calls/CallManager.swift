import AudioPipe
import FoundationEssentials
import MainLoop
import WCSSession

/// The one owner of calls in the process (baresip's call.c to the agent's ua.c): one table of
/// `CallEntry`, each with a `CallState` that changes only in `move`, which runs the pure
/// `CallLifecycle`. The session (`WCSSession`) only speaks the wire; `Agent` only routes session
/// events here and asks for the list. Everything else asks or subscribes (events).
///
/// An actor: verbs arrive from control connections, events from the session pump and media
/// streams. Because it is reentrant, every check-and-change of a call's state is done in one
/// synchronous `move` before any `await`, so two answers cannot both pass the check.
actor CallManager {
    var config: AgentConfig
    let session: WCSSession
    let publish: @Sendable (AgentEvent) -> Void
    var calls: [String: CallEntry] = [:] {
        didSet { journal.track(calls) }  // the open-calls file: calls a killed agent held get a record at the next start
    }
    let journal: CallJournal
    var hooks: CallHooks
    /// Callers locked out for wrong DTMF codes (Actions/).
    var lockouts = DTMFLockouts()
    /// Ids of the calls that ended lately, oldest first (at most `endedMemory`): a late duplicate
    /// `notifyIncomingCall` (an INVITE retransmission) of one of them is not a new call.
    var recentlyEnded = RecentEnds(limit: CallManager.endedMemory)
    static let endedMemory = 256

    /// Seconds an incoming call announced without a usable offer waits for a late `setRemoteSDP`
    /// before it is hung up.
    static let offerGrace: Double = 1
    /// Seconds past the ring timeout after which a still-ringing call ends locally.
    static let ringExpiryGrace: Double = 2
    /// Seconds a call in `ending` waits for the server's final status before it ends locally.
    static let endingGrace: Double = 5

    init(config: AgentConfig, session: WCSSession, publish: @escaping @Sendable (AgentEvent) -> Void) {
        self.config = config
        self.session = session
        self.publish = publish
        journal = CallJournal(directory: config.stateDir)
        hooks = CallHooks(config: config)
    }

    /// Takes a reloaded configuration (SIGHUP): audio, answer mode and media settings apply from
    /// the next call on; calls in progress keep what they opened with, except the microphone and
    /// speaker gains, which change at once.
    func reload(config: AgentConfig) {
        self.config = config
        for call in calls.values {
            call.voice?.update(micGainDb: config.voiceProcessing.micGainDb, speakerGainDb: config.voiceProcessing.speakerGainDb)
        }
        hooks = CallHooks(config: config)
    }

    // MARK: - The one place a call changes state

    /// Runs `CallLifecycle` for `input` on call `id` and stores the new state. Returns the effects
    /// for the caller to perform; throws the refusal of a verb (worded with `verb`).
    @discardableResult
    func move(_ id: String, _ input: CallInput, verb: String? = nil) throws(AgentError) -> [CallEffect] {
        guard var call = calls[id] else { throw AgentError("no call \(id)") }
        switch CallLifecycle.step(from: call.state, on: input) {
        case .failure(let refusal):
            throw AgentError("cannot \(verb ?? "\(input)") call \(id): \(refusal.reason)")
        case .success(let step):
            if step.state != call.state { Log.debug("calls", "call \(id): \(call.state.rawValue) → \(step.state.rawValue) on \(input)") }
            call.state = step.state
            calls[id] = call
            return step.effects
        }
    }

    /// `move` for inputs that are not verbs, with its effects performed: `hangup` sent once, and
    /// a local end (`status`, `info`) when the server is not waited for.
    func apply(_ id: String, _ input: CallInput, cause: CallEndCause? = nil, status: CallStatus = .finish, info: String? = nil) {
        if let cause { calls[id]?.noteEnd(cause) }
        guard let effects = try? move(id, input) else { return }
        perform(effects, id, status: status, info: info)
    }

    /// Performs a transition's effects. The hangup goes out before the session forgets the call.
    func perform(_ effects: [CallEffect], _ id: String, status: CallStatus = .finish, info: String? = nil) {
        let hangup = effects.contains(.sendHangup), endNow = effects.contains(.endNow)
        if endNow { finish(id, status: status, info: info) }
        guard hangup else { return }
        if !endNow { awaitFinalStatus(id) }
        let session = self.session
        Task {
            do { try await session.hangup(callId: id) } catch { Log.warning("calls", "cannot hang up call \(id): \(error)") }
            if endNow { await session.forget(callId: id) }
        }
    }

    /// After our hangup, the server has `endingGrace` seconds to end the call; then it ends
    /// locally, so a server that never sends `finish` cannot keep it in the table.
    func awaitFinalStatus(_ id: String) {
        calls[id]?.expiryTask?.cancel()
        calls[id]?.expiryTask = Task { [weak self] in
            try? await Task.sleep(for: .seconds(Self.endingGrace))
            guard !Task.isCancelled, let self else { return }
            await self.finalStatusMissing(id)
        }
    }

    private func finalStatusMissing(_ id: String) async {
        guard calls[id]?.state == .ending else { return }
        Log.warning("calls", "call \(id): no final status from the server \(Int(Self.endingGrace)) s after our hangup; ending it locally")
        finish(id, status: .finish, info: "no final status from the server after our hangup")
        await session.forget(callId: id)
    }

    // MARK: - Signaling events

    /// A call rings (or rings again after a resume): publish it, admit or reject it, arm its timers.
    func incoming(_ info: CallInfo, offer: String?, replayed: Bool) {
        if let known = calls[info.callId], known.state != .ringing {
            // A retransmitted INVITE of a call being answered or up: it stays where it is (not RING).
            Log.info("calls", "call \(info.callId) announced again while \(known.state.rawValue); duplicate ignored")
            return
        }
        if calls[info.callId] == nil, recentlyEnded.contains(info.callId) {
            // It ended here already (answered elsewhere, hung up...): never ring it again.
            Log.info("calls", "call \(info.callId) announced again after it ended; duplicate ignored")
            let session = self.session
            Task { await session.forget(callId: info.callId) }
            return
        }
        if var known = calls[info.callId] {
            let rang = known.offer != nil
            known.serverStatus = info.status
            known.info = info.info ?? known.info
            if known.offer == nil, let offer { known.offer = offer }
            calls[info.callId] = known
            if known.offer != nil { publishIncoming(known, replayed: replayed || rang) }
            if known.state == .ringing, known.offer != nil { scheduleAutoAnswer(info.callId) }
            return
        }
        expectCall("incoming call \(info.callId)")
        let live = calls.values.filter { $0.state.isLive }.count
        var call = CallEntry(callId: info.callId, direction: .incoming, state: .ringing, serverStatus: info.status,
                             caller: info.caller, callee: info.callee, displayName: info.visibleName)
        call.info = info.info
        call.offer = offer
        calls[info.callId] = call
        // Rung (the `incoming_call` event: the prompt's bell, hooks' consumers) only when it can be
        // answered: a call declined as busy is only `call_rejected`; one without a usable offer rings
        // when its offer arrives (`remoteSDP`), or never.
        if live >= config.maxCalls {
            rejectAsBusy(info.callId, live: live)
            return
        }
        if offer != nil { publishIncoming(call, replayed: replayed) }
        scheduleRingExpiry(info.callId)
        if offer == nil { awaitOffer(info.callId) }
        chooseAnswer(info)
    }

    private func publishIncoming(_ call: CallEntry, replayed: Bool) {
        publish(.incomingCall(call.description, replayed: replayed, ringTimeout: config.ringTimeout))
    }

    /// Declines a call at once because `max_calls` calls are already live; says so in an event.
    private func rejectAsBusy(_ callId: String, live: Int) {
        let caller = calls[callId]?.caller
        Log.notice("calls", "call \(callId) from \(caller ?? "?") declined as busy: \(live) calls already (max_calls \(config.maxCalls))")
        publish(.callRejected(callId: callId, reason: "busy", caller: caller, maxCalls: config.maxCalls))
        apply(callId, .rejectBusy, cause: .rejectedAsBusy)
    }

    /// The display name `on_incoming` printed for the call.
    func setDisplayName(_ name: String, callId: String) {
        guard calls[callId] != nil else { return }
        calls[callId]?.displayName = name
        calls[callId]?.displayNameFromHook = true
        publish(.callUpdated(callId: callId, displayName: name, source: "on_incoming"))
    }

    /// A status from the server: the transition, then the events (`call_control` for hold
    /// changes, `call_ended` for the end, then `call_status`).
    /// An incoming call the server says is up before our answer went out was answered by another
    /// device: it ends here as `answered_elsewhere` at once, without a hangup (someone talks on it)
    /// and without answering it later (`CallLifecycle`).
    func statusChanged(_ info: CallInfo) {
        guard var call = calls[info.callId] else { return }
        let wasHeld = call.state == .held
        call.serverStatus = info.status
        call.info = info.info ?? call.info
        let elsewhere = info.status == .established && call.direction == .incoming
            && (call.state == .ringing || call.state == .answering)
        if elsewhere {
            call.noteEnd(.answeredElsewhere)
            Log.notice("calls", "call \(info.callId) from \(call.caller ?? "?") was answered by another device")
        } else if info.status == .established, call.answeredAt == nil {
            call.answeredAt = Date()
        }
        calls[info.callId] = call
        let description = calls[info.callId]!.description
        if elsewhere {
            apply(info.callId, .answeredElsewhere, status: .finish, info: info.info ?? "answered by another device")
            let session = self.session
            Task { await session.forget(callId: info.callId) }
            return
        }
        apply(info.callId, .server(info.status), status: info.status, info: info.info)
        if info.status == .established { callEstablished(info.callId) }
        if let now = calls[info.callId], (now.state == .held) != wasHeld {
            publish(.callControl(controlChange(now, id: info.callId, action: wasHeld ? "resumed" : "held")))
        }
        publish(.callStatus(description))
    }

    /// The server's SDP for a known call: the answer to our offer, or a late offer.
    func remoteSDP(callId: String, sdp: String) async {
        guard let call = calls[callId] else { return }
        if call.direction == .incoming {
            guard call.offer == nil, call.state == .ringing else { return }
            calls[callId]?.offer = sdp
            calls[callId]?.offerWaitTask?.cancel()
            if let ringing = calls[callId] { publishIncoming(ringing, replayed: false) }
            scheduleAutoAnswer(callId)
            return
        }
        guard let media = call.media else { return }
        do {
            try await media.applyAnswer(sdp)
        } catch {
            Log.error("calls", "call \(callId): the server's SDP answer is unusable: \(error)")
            publish(.mediaFailed(callId: callId, reason: "\(error)"))
            apply(callId, .failed, cause: .mediaFailure("\(error)"))
        }
    }
}
