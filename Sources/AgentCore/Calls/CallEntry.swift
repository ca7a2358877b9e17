import AudioPipe
import FoundationEssentials
import WCSSession

/// One call in `CallManager`'s table: its state, what the server said of it, and its media.
/// A value owned by the manager actor; only the manager changes it.
struct CallEntry {
    enum Direction: String, Sendable { case incoming, outgoing }

    let callId: String
    let direction: Direction
    /// Changed only through `CallManager.move` (which runs `CallLifecycle`).
    var state: CallState
    /// The server's last status of the call (shown as `status`; decisions use `state`).
    var serverStatus: CallStatus
    /// The server's last info string (e.g. "Normal call clearing").
    var info: String?
    var caller: String?
    var callee: String?
    var displayName: String?
    /// The display name came from the on_incoming hook (shown in `calls`).
    var displayNameFromHook = false
    /// How this call is answered, as the answer rules or the hook chose; nil = `[audio] answer`.
    var answerMode: AnswerMode?
    /// The answer decision waits for `on_incoming` (auto-answer is not armed meanwhile).
    var answerPending = false
    /// The server's SDP offer of an incoming call (nil until a usable one arrived).
    var offer: String?
    var media: CallMedia?
    /// The call's voice processing (echo cancellation, noise suppression, gains), when configured.
    var voice: VoiceProcessingStage?
    var recordingPath: String?
    var started = Date()
    var answerRequestedAt: Date?
    var answeredAt: Date?
    /// Why we ended it, if we did (the first reason wins; a lost session overrides).
    var endCause: CallEndCause?
    /// Timers of this call, cancelled when it ends: auto-answer, the wait for a late offer, and
    /// `expiryTask`: the local ring expiry, then (once ending) the wait for the final status.
    var answerTask: Task<Void, Never>?
    var offerWaitTask: Task<Void, Never>?
    var expiryTask: Task<Void, Never>?
    /// Door-station state: DTMF keys and codes, tones, the time limit (Actions/).
    var door = CallDoorState(mergeWindow: 0.4)

    init(callId: String, direction: Direction, state: CallState, serverStatus: CallStatus, caller: String?,
         callee: String?, displayName: String?)
    {
        self.callId = callId
        self.direction = direction
        self.state = state
        self.serverStatus = serverStatus
        self.caller = caller
        self.callee = callee
        self.displayName = displayName
    }

    /// Records why we end the call: the first cause wins, except that a lost session overrides.
    mutating func noteEnd(_ cause: CallEndCause) {
        if endCause == nil || cause == .connectionLost { endCause = cause }
    }

    /// The call's fields shared by `calls` and the call events.
    var description: CallDescription {
        CallDescription(callId: callId, direction: direction.rawValue, status: serverStatus.wire,
                        started: AgentClock.iso(started), caller: caller, callee: callee,
                        displayName: displayName, info: info)
    }

    /// The call as `calls` and `status` list it.
    var summary: CallSummary {
        CallSummary(call: description, state: state, media: media != nil, held: state == .held, muted: media?.isMuted ?? false,
                    durationSeconds: answeredAt.map { (Date().timeIntervalSince($0) * 10).rounded() / 10 },
                    recording: recordingPath, stats: media.map { mediaStatistics($0) })
    }

    private func mediaStatistics(_ media: CallMedia) -> JSONValue {
        guard case .object(var fields) = CallManager.json(media.statistics()) else { return .null }
        if let voice { fields["voice"] = CallManager.json(voice.statistics) }
        return .object(fields)
    }
}

/// Why we ended a call ourselves; feeds `CallEndClassifier`.
enum CallEndCause: Sendable, Equatable {
    case declinedByUs
    case rejectedAsBusy
    /// We hung it up before it was answered.
    case hungUpByUs
    /// We hung it up after it was answered (a normal end).
    case hungUpAfterAnswer
    /// We hung it up because the far end closed its media (DTLS close_notify) and the server
    /// did not end the call within `CallManager.peerClosedGrace`.
    case peerClosedMedia
    /// Our media or SDP failed (reason), or the offer was unusable.
    case mediaFailure(String)
    /// It rang past the ring timeout and we ended it locally.
    case ringExpired
    case connectionLost
    /// Another device answered it while it rang here.
    case answeredElsewhere
}
