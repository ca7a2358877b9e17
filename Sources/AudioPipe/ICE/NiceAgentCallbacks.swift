import CNice

// The C callbacks of a `NiceAgentSession`. libnice calls them on the session's loop thread with
// the user-data pointer the session registered: an `Unmanaged` reference the session retains
// until it has detached every callback (see `NiceAgentSession.tearDown`).

private func session(_ userData: gpointer?) -> NiceAgentSession? {
    guard let userData else { return nil }
    return Unmanaged<NiceAgentSession>.fromOpaque(userData).takeUnretainedValue()
}

/// "component-state-changed"
let niceComponentStateChanged: cnice_component_state_changed_fn = { _, streamID, componentID, state, userData in
    session(userData)?.componentStateChanged(streamID: streamID, componentID: componentID, state: state)
}

/// "candidate-gathering-done"
let niceCandidateGatheringDone: cnice_candidate_gathering_done_fn = { _, streamID, userData in
    session(userData)?.gatheringDone(streamID: streamID)
}

/// "new-selected-pair-full"
let niceNewSelectedPair: cnice_new_selected_pair_fn = { _, streamID, componentID, local, remote, userData in
    guard let local, let remote else { return }
    session(userData)?.selectedPairChanged(streamID: streamID, componentID: componentID, local: local, remote: remote)
}

/// `nice_agent_attach_recv` callback: one datagram that is not STUN.
let niceReceive: NiceAgentRecvFunc = { _, _, componentID, length, buffer, userData in
    guard let buffer, length > 0 else { return }
    let bytes = Array(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
    session(userData)?.received(componentID: componentID, datagram: bytes)
}
