import FoundationEssentials
import WCSSession

/// What the agent saw of a call when it ended: the input of `CallEndClassifier`.
struct CallEndFacts: Sendable {
    var direction: CallEntry.Direction
    /// The final status from the server (FINISH, BUSY, FAILED).
    var status: CallStatus
    /// The server's info string of the final status.
    var info: String?
    var answered: Bool
    /// We declined it (`decline`).
    var declinedByUs = false
    /// We declined it because we were busy (`max_calls`).
    var rejectedAsBusy = false
    /// We hung it up (`hangup`) before it was answered.
    var hungUpByUs = false
    /// Our media failed (reason), and we hung up because of it.
    var mediaFailure: String?
    /// The session (and with it the call) was lost.
    var connectionLost = false
    /// The server said the call was up before our answer went out: another device answered it.
    var answeredElsewhere = false
    /// Seconds it rang before ending.
    var ringSeconds: Double = 0
    /// The configured server ring timeout.
    var ringTimeout: Double = 30
}

/// Maps what the agent saw onto a `CallEndResult`, in this order: answered by another device
/// (the server's ESTABLISHED before our answer) → `answered_elsewhere`; connection lost → `connection_lost`; our media failure or a FAILED status → `failed`;
/// a BUSY status or our busy rejection → `busy`; our decline → `declined`; answered → `completed`;
/// an unanswered incoming call whose info mentions "elsewhere" (SIP's "Call completed elsewhere")
/// → `answered_elsewhere`; our hangup before an answer → `canceled`; an unanswered incoming call
/// the server ended after ringing at least `ringTimeout − 1` s → `no_answer` (the server says
/// "Normal call clearing" both for the caller's CANCEL and its ring timeout, so the ringing time is
/// the only clue), earlier → `canceled`; an unanswered outgoing call the far end ended → `no_answer`.
enum CallEndClassifier {
    static func classify(_ f: CallEndFacts) -> CallEndResult {
        if f.answeredElsewhere { return .answeredElsewhere }
        if f.connectionLost { return .connectionLost }
        if f.mediaFailure != nil || f.status == .failed { return .failed }
        if f.status == .busy || f.rejectedAsBusy { return .busy }
        if f.declinedByUs { return .declined }
        if f.answered { return .completed }
        if f.direction == .incoming, f.info?.lowercased().contains("elsewhere") == true { return .answeredElsewhere }
        if f.hungUpByUs { return .canceled }
        if f.direction == .incoming { return f.ringSeconds >= f.ringTimeout - 1 ? .noAnswer : .canceled }
        return .noAnswer
    }
}
