import CNice
import MainLoop

// The C callbacks of a `NiceAgentSession`. libnice calls them on the shared loop thread (the
// agent runs on that loop's GLib context) with the user-data pointer the session registered:
// an `Unmanaged` reference the session retains until it has detached every callback (see
// `NiceAgentSession.tearDown`). Each enters the session's isolation with `assumeIsolated`,
// which also checks that claim about the thread.

private func session(_ userData: gpointer?) -> NiceAgentSession? {
    guard let userData else { return nil }
    return Unmanaged<NiceAgentSession>.fromOpaque(userData).takeUnretainedValue()
}

/// "component-state-changed"
let niceComponentStateChanged: cnice_component_state_changed_fn = { _, streamID, componentID, state, userData in
    guard let session = session(userData) else { return }
    MainLoopActor.assumeIsolated {
        session.componentStateChanged(streamID: streamID, componentID: componentID, state: state)
    }
}

/// "candidate-gathering-done"
let niceCandidateGatheringDone: cnice_candidate_gathering_done_fn = { _, streamID, userData in
    guard let session = session(userData) else { return }
    MainLoopActor.assumeIsolated { session.gatheringDone(streamID: streamID) }
}

/// "new-selected-pair-full"
let niceNewSelectedPair: cnice_new_selected_pair_fn = { _, streamID, componentID, local, remote, userData in
    guard let local, let remote, let session = session(userData) else { return }
    let pair = ICESelectedPair(local: NiceCandidateConversion.endpoint(local), remote: NiceCandidateConversion.endpoint(remote))
    MainLoopActor.assumeIsolated {
        session.selectedPairChanged(streamID: streamID, componentID: componentID, pair: pair)
    }
}

/// `nice_agent_attach_recv` callback: one datagram that is not STUN.
let niceReceive: NiceAgentRecvFunc = { _, _, componentID, length, buffer, userData in
    guard let buffer, length > 0, let session = session(userData) else { return }
    // libnice's buffer, valid during this call; `assumeIsolated` runs synchronously on this thread.
    nonisolated(unsafe) let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(length))
    MainLoopActor.assumeIsolated { session.received(componentID: componentID, bytes: bytes) }
}
