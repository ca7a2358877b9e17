import WCSSession

/// Something that happens to a call: a local decision, a verb, or a status from the server.
enum CallInput: Sendable, Equatable, CustomStringConvertible {
    /// We start to answer (auto-answer or the `answer` verb).
    case answer
    /// Our SDP answer went out.
    case answerSent
    /// The `decline` verb.
    case decline
    /// The `hangup` verb (or a retiring agent).
    case hangup
    /// `max_calls` calls are already live.
    case rejectBusy
    /// The offer is missing or unusable: the call can never be answered.
    case unusableOffer
    /// It rang past the ring timeout (plus grace) and the server never ended it.
    case ringExpired
    /// Our media or SDP failed.
    case failed
    /// A status from the server.
    case server(CallStatus)
    /// The server session that carried the call is gone.
    case sessionLost
    /// The server says the incoming call is up before our answer went out: another device took it.
    case answeredElsewhere

    var description: String {
        switch self {
        case .answer: "answer"
        case .answerSent: "answer sent"
        case .decline: "decline"
        case .hangup: "hangup"
        case .rejectBusy: "busy rejection"
        case .unusableOffer: "unusable offer"
        case .ringExpired: "ring expiry"
        case .failed: "failure"
        case .server(let status): "server \(status.wire)"
        case .sessionLost: "session lost"
        case .answeredElsewhere: "answered elsewhere"
        }
    }
}

/// What a transition asks the I/O around it to do.
enum CallEffect: Sendable, Equatable {
    /// Send `hangup` to the server (never twice for one call: only the move into `ending` asks).
    case sendHangup
    /// End the call now (record it, free its slot) instead of waiting for the server's `finish`.
    case endNow
}

/// The result of one transition: the new state and its effects.
struct CallStep: Sendable, Equatable {
    var state: CallState
    var effects: [CallEffect] = []
}

/// Why a verb was refused in the call's current state (worded for the operator).
struct CallRefusal: Error, Sendable, Equatable {
    let reason: String
}

/// The call state machine: a pure function from (state, input) to the next state and its effects,
/// tested without I/O (`CallLifecycleTests`); called only from `CallManager.move`, on that actor. Verbs (answer, decline, hangup) are refused when they do not apply; other
/// inputs that do not apply change nothing (a late status, a second failure).
enum CallLifecycle {
    static func step(from state: CallState, on input: CallInput) -> Result<CallStep, CallRefusal> {
        let stay = Result<CallStep, CallRefusal>.success(CallStep(state: state))
        let hangUp = Result<CallStep, CallRefusal>.success(CallStep(state: .ending, effects: [.sendHangup]))
        let endHere = Result<CallStep, CallRefusal>.success(CallStep(state: .ending, effects: [.sendHangup, .endNow]))
        switch input {
        case .answer:
            switch state {
            case .ringing: return .success(CallStep(state: .answering))
            case .answering, .connectingMedia: return .failure(CallRefusal(reason: "it is already being answered"))
            default: return .failure(CallRefusal(reason: "it is \(state.rawValue.replacing("_", with: " "))"))
            }
        case .answerSent:
            return state == .answering ? .success(CallStep(state: .connectingMedia)) : stay
        case .decline:
            if state == .ringing { return hangUp }
            if state == .answering || state == .connectingMedia { return .failure(CallRefusal(reason: "it is being answered")) }
            return .failure(CallRefusal(reason: "it is \(state.rawValue.replacing("_", with: " "))"))
        case .hangup:
            if state.isLive { return hangUp }
            return .failure(CallRefusal(reason: state == .ending ? "it is already ending" : "it has ended"))
        case .rejectBusy:
            return state == .ringing ? hangUp : stay
        case .unusableOffer:
            return state == .ringing || state == .answering ? endHere : stay
        case .ringExpired:
            return state == .ringing ? endHere : stay
        case .failed:
            return state.isLive ? hangUp : stay
        case .sessionLost:
            return state == .ended ? stay : .success(CallStep(state: .ended, effects: [.endNow]))
        case .answeredElsewhere:
            // Never a hangup: someone else talks on it; never an answer later: it is not ours.
            return state == .ringing || state == .answering ? .success(CallStep(state: .ended, effects: [.endNow])) : stay
        case .server(let status):
            if state == .ended { return stay }
            if status.isTerminal { return .success(CallStep(state: .ended, effects: [.endNow])) }
            guard state.isLive else { return stay }
            if status == .established, state != .ringing { return .success(CallStep(state: .established)) }
            if status == .hold, state == .established || state == .held || state == .connectingMedia {
                return .success(CallStep(state: .held))
            }
            return stay
        }
    }
}
