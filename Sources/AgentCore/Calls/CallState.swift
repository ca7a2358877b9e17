/// Where a call is in its life, as the agent sees it. Owned by `CallManager` (the one table of
/// calls in the process); changed only through `CallLifecycle.step`, so every transition has one
/// place. The server's own status string (RING, ESTABLISHED, ...) is kept next to it for display,
/// but decisions are taken on this state.
///
/// incoming: ringing → answering → connectingMedia → established ⇄ held → ending → ended
/// outgoing: connectingMedia → established ⇄ held → ending → ended
public enum CallState: String, Sendable, Codable, CaseIterable {
    /// An incoming call rings; nobody has started to answer it.
    case ringing
    /// An answer is being prepared (media opening, SDP answer being made). A second `answer` is
    /// refused from here on: this is what closes the double-answer race.
    case answering
    /// Our SDP (answer, or offer of an outgoing call) went out; waiting for the server to
    /// confirm the call.
    case connectingMedia = "connecting_media"
    /// The server says the call is up.
    case established
    /// The call is on hold.
    case held
    /// We sent `hangup` (once) and wait for the server's final status.
    case ending
    /// Over: recorded, removed from the table.
    case ended

    /// True until the call is on its way out; only such calls count against `max_calls`.
    public var isLive: Bool { self != .ending && self != .ended }

    /// True while the call is up (talking or on hold).
    public var isTalking: Bool { self == .established || self == .held }
}

/// What became of a call so far, as `CallManager.fate(of:)` tells a push's reply.
enum CallFate: Sendable, Equatable {
    /// In the table: its state, and whether a usable offer came (without one it cannot be answered yet).
    case live(CallState, hasOffer: Bool)
    /// It ended lately with this result.
    case ended(CallEndResult)
    /// Never seen (or ended long ago).
    case unknown
}
