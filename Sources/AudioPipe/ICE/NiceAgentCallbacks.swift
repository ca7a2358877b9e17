import CNice
import MainLoop

// The C callbacks of a `NiceAgentSession`. libnice calls them with the user-data pointer the
// session registered: an `Unmanaged` reference the session retains until it has detached every
// callback (see `NiceAgentSession.tearDown`).
//
// libnice emits an agent's signals on the thread that runs the code that caused them: the loop
// thread for timers and for sockets on the loop's context, but the media clock thread for sockets
// moved to a `MediaReceiveContext` (a check or its answer read there can change the component's
// state or selected pair). The signal callbacks therefore run the session's handler at once on
// the loop thread (`assumeIsolated`, which checks that claim) and post it to the loop from any
// other thread, never `assumeIsolated` off the loop.

private func session(_ userData: gpointer?) -> NiceAgentSession? {
    guard let userData else { return nil }
    return Unmanaged<NiceAgentSession>.fromOpaque(userData).takeUnretainedValue()
}

/// Runs `work` on the loop thread: inline when libnice called from it, otherwise posted (the
/// posted job holds the session, so the handler still finds it; it checks whether it closed).
private func onLoop(_ session: NiceAgentSession, _ work: @escaping @MainLoopActor (NiceAgentSession) -> Void) {
    if MainLoopActor.isCurrent {
        MainLoopActor.assumeIsolated { work(session) }
    } else {
        session.signalsFromOffLoop.add(1, ordering: .relaxed)
        MainLoopActor.post { work(session) }
    }
}

/// "component-state-changed"
let niceComponentStateChanged: cnice_component_state_changed_fn = { _, streamID, componentID, state, userData in
    guard let session = session(userData) else { return }
    // Direct media sends stop on this thread, not one loop turn later (libnice's send refuses now).
    if state == NICE_COMPONENT_STATE_FAILED.rawValue { session.dropDirectRoute() }
    onLoop(session) { $0.componentStateChanged(streamID: streamID, componentID: componentID, state: state) }
}

/// "candidate-gathering-done"
let niceCandidateGatheringDone: cnice_candidate_gathering_done_fn = { _, streamID, userData in
    guard let session = session(userData) else { return }
    onLoop(session) { $0.gatheringDone(streamID: streamID) }
}

/// "new-selected-pair-full" (the candidates are read here: they are valid only during the call)
let niceNewSelectedPair: cnice_new_selected_pair_fn = { _, streamID, componentID, local, remote, userData in
    guard let local, let remote, let session = session(userData) else { return }
    let pair = ICESelectedPair(local: NiceCandidateConversion.endpoint(local), remote: NiceCandidateConversion.endpoint(remote))
    onLoop(session) { $0.selectedPairChanged(streamID: streamID, componentID: componentID, pair: pair) }
}

/// `nice_agent_attach_recv` callback on the loop's context: one datagram that is not STUN.
let niceReceive: NiceAgentRecvFunc = { _, _, componentID, length, buffer, userData in
    guard let buffer, length > 0, let session = session(userData) else { return }
    // libnice's buffer, valid during this call; `assumeIsolated` runs synchronously on this thread.
    nonisolated(unsafe) let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(length))
    MainLoopActor.assumeIsolated { session.received(componentID: componentID, bytes: bytes) }
}

/// `nice_agent_attach_recv` callback on a `MediaReceiveContext` (media clock thread): one datagram
/// that is not STUN, handed to the call's target in libnice's buffer (no copy here). `userData` is
/// the target, retained by `NiceMediaRoute` until the sockets leave that context.
let niceReceiveOnMediaClock: NiceAgentRecvFunc = { _, _, componentID, length, buffer, userData in
    MediaReceiveContext.allowRecursionOfCurrentSource()
    guard componentID == 1, let buffer, length > 0, let userData else { return }
    let target = Unmanaged<MediaReceiveTarget>.fromOpaque(userData).takeUnretainedValue()
    target.deliver(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
}
