/// What the agent did with a push (the `push` field of the reconnect reply and webhook answer).
public enum PushOutcome: String, Sendable {
    /// The pushed call is there after the wake: it rings (or is answered) as usual.
    case ringing
    /// The session came back but the call had ended: recorded as `missed_while_asleep`, not rung.
    case missed
    /// A push for a call id already seen: no second wake, no second ring.
    case duplicate
    /// The session did not come back; the push may be retried.
    case notConnected = "not_connected"
    /// The pushed call came back, but another device had answered it: recorded
    /// `answered_elsewhere`, not rung.
    case answeredElsewhere = "answered_elsewhere"
    /// The pushed call came back but could not be rung: declined as busy (`max_calls`), no usable
    /// offer, or it ended at once; recorded with that result.
    case ended
}
