import CNice
import MainLoop

/// Which context an agent's sockets are on, and the moves between the loop and a media clock's
/// `MediaReceiveContext` (`nice_agent_attach_recv`, which re-attaches every socket source of the
/// component to the given context, under the agent's lock).
///
/// Runs on: the loop thread, inside `NiceAgentSession` (a value it owns). Moving onto the media
/// context needs no wait: no callback of this agent can run there before. Moving off it (back to
/// the loop, or detaching at close) happens while the media clock thread is not draining
/// (`excludingDrain`), so once a move returns no callback is running with the target, and the
/// target (retained for libnice here) can be released.
struct NiceMediaRoute {
    private var onMediaClock: (context: MediaReceiveContext, target: Unmanaged<MediaReceiveTarget>)?

    /// Whether the sockets are on a media clock's context.
    var isOnMediaClock: Bool { onMediaClock != nil }

    /// Moves the component's sockets to `context`; datagrams then go to `target` on the thread
    /// that drains it. Does nothing when they are there already.
    mutating func moveToMediaClock(agent: OpaquePointer, streamID: guint, context: MediaReceiveContext,
                                   target: MediaReceiveTarget) {
        guard onMediaClock == nil else { return }
        let retained = Unmanaged.passRetained(target)
        onMediaClock = (context, retained)
        nice_agent_attach_recv(agent, streamID, 1, context.context, niceReceiveOnMediaClock, retained.toOpaque())
    }

    /// Moves the sockets back to the loop's context with the loop's callback (`userData` is the
    /// session) or, with `userData` nil, detaches the callback there (closing). Waits for a drain
    /// in progress first when the sockets are on a media context.
    mutating func moveToLoop(agent: OpaquePointer, streamID: guint, userData: UnsafeMutableRawPointer?) {
        let loopContext = MainLoopActor.loop.context
        let callback: NiceAgentRecvFunc? = userData == nil ? nil : niceReceive
        guard let (context, target) = onMediaClock else {
            nice_agent_attach_recv(agent, streamID, 1, loopContext, callback, userData)
            return
        }
        context.excludingDrain {
            nice_agent_attach_recv(agent, streamID, 1, loopContext, callback, userData)
        }
        onMediaClock = nil
        target.release()
    }
}
