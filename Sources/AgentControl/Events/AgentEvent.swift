import WCSJSON

/// Every event the daemon publishes to `events` subscribers (the CLI's `events`, the prompt,
/// scripts), one case per event type. Built by `Agent` (connection lifecycle, session pass-through,
/// pushes) and `CallManager` (calls, media); encoded on the wire as today's flat JSON object with a
/// `type` (see `fields` and `TimedAgentEvent`), which is a stable interface for scripts: the keys,
/// and which of them are null or absent, are pinned by `AgentEventJSONTests`.
///
/// A value type, built on whichever actor publishes and decoded on the subscriber's thread.
public enum AgentEvent: Sendable, Equatable {
    /// `state`: the agent's phase (`AgentPhase` raw value), why it is connecting, or when it retries.
    case state(String, reason: String? = nil, retryInSeconds: Double? = nil)
    /// `resumed`: the server session is back by token; `pending_calls` when calls were ringing;
    /// `time_us`: the moment the agent had it back, µs since the Unix epoch (finer than `time`,
    /// for wake latency measurements against a push's send time on the same machine).
    case resumed(sessionId: String?, pendingCalls: [String]?, timeMicroseconds: Int64? = nil)
    /// `logged_in`: a fresh login.
    case loggedIn(sessionId: String?)
    /// `relogged_in`: the token was gone; a new login made a new session.
    case reloggedIn(sessionId: String?)
    /// `registration_failed`: our login's registration failed (`error`), or the server reported a
    /// failed registration later (`status`, `info`).
    case registrationFailed(RegistrationFailure)
    /// `failed`: the agent gave up (the token was refused and nothing else can be done).
    case failed(error: String)
    /// `missed_call`: a pushed call ended before the session came back.
    case missedCall(callId: String, caller: String?, uuid: String?)
    /// `push`: what a push did, whichever way it came (`source`: reconnect, webhook, mqtt): `push` is
    /// ringing, missed, duplicate, not_connected, or invalid (not a push: `call_id` null); `outcome`
    /// is the wake's result, null when no wake was tried. For MQTT this is the push's only answer.
    case push(source: String, callId: String?, push: String, outcome: String?)
    /// `push_intake`: a push intake's connection to its broker (`source` mqtt) is `connected` or
    /// `disconnected` (`error`: why, when it was not asked for).
    case pushIntake(source: String, state: String, error: String?)
    /// `session_lost_while_asleep`: the server no longer knew the session of a sleeping agent (it
    /// restarted or forgot it); a fresh login followed. `alive_until`: when the session was last
    /// known to be alive (the agent closed its socket then), ISO 8601; `detected_by`: `refresh`, `push`,
    /// `reconnect`... Calls in between could not reach the agent.
    case sessionLostWhileAsleep(aliveUntil: String?, detectedBy: String)
    /// `session_state`: the WCS session's state (`SessionState` raw value).
    case sessionState(String)
    /// `disconnected`: the socket went away, and why.
    case disconnected(reason: String)
    /// `transfer`: progress of a transfer (ACCEPTED, TRYING, COMPLETED, FAILED).
    case transfer(callId: String, status: String, info: String?)
    /// `data`: data pushed by the server's backend.
    case data(payload: JSONValue)
    /// `data_status`: the backend's answer to sent data.
    case dataStatus(operationId: String, status: String, info: String?)
    /// `server_debug`: server-side session debug logging started or stopped.
    case serverDebug(status: String, file: String?)
    /// `warning`: something odd but survivable.
    case warning(message: String)
    /// `incoming_call`: a call rings (or rings again after a resume: `replayed`).
    case incomingCall(CallDescription, replayed: Bool, ringTimeout: Double)
    /// `call_status`: the server changed a call's status.
    case callStatus(CallDescription)
    /// `call_rejected`: a call declined at once (`reason` "busy": `max_calls` reached; "rule": an answer rule).
    case callRejected(callId: String, reason: String, caller: String?, maxCalls: Int)
    /// `call_updated`: a call's display name changed (`source`: "on_incoming", the hook).
    case callUpdated(callId: String, displayName: String, source: String)
    /// `call_control`: held, resumed, muted, unmuted, dtmf or transfer.
    case callControl(CallControlChange)
    /// `call_ended`: a call is over, with its end result (as recorded in calls.jsonl).
    case callEnded(CallEndReport)
    /// `media`: a step of a call's media (ICE, DTLS, first audio).
    case media(callId: String, MediaProgress)
    /// `media_failed`: a call's media failed (it is hung up).
    case mediaFailed(callId: String, reason: String)
    /// `dtmf`: the far end pressed a key (`digit` is `hidden` when `[actions]` has codes, see
    /// `[dtmf] events`).
    case dtmf(callId: String, digit: String)
    /// `action`: a door-station action on a call: a DTMF code matched (`fired`, then `ok` or
    /// `failed`), a wrong entry, a lock-out, the time limit. Never carries the keys: only the
    /// action's name and how many keys the entry had.
    case action(CallActionReport)
    /// An event type this build does not know (a newer daemon): its type and fields as received.
    case other(type: String, fields: [String: JSONValue])
}

/// The two shapes of `registration_failed`.
public enum RegistrationFailure: Sendable, Equatable {
    /// Our login's registration failed: `{"error"}`.
    case login(error: String)
    /// The server reported it: `{"status", "info"}` (each may be null).
    case reported(status: String?, info: String?)
}

/// The fields of `call_control`.
public struct CallControlChange: Sendable, Equatable {
    public var callId: String
    /// held, resumed, muted, unmuted, dtmf or transfer.
    public var action: String
    public var held: Bool
    public var muted: Bool
    /// dtmf: the digits and how they went (`in_band`, `server_rfc2833`, `server_info`).
    public var digits: String?
    public var via: String?
    /// transfer: the target.
    public var target: String?

    public init(callId: String, action: String, held: Bool, muted: Bool, digits: String? = nil, via: String? = nil,
                target: String? = nil)
    {
        self.callId = callId
        self.action = action
        self.held = held
        self.muted = muted
        self.digits = digits
        self.via = via
        self.target = target
    }
}

/// The fields of `action` (door station).
public struct CallActionReport: Sendable, Equatable {
    public var callId: String
    /// The `[actions.NAME]`, nil for a wrong entry or the time limit.
    public var action: String?
    /// fired, ok, failed, extended, wrong_code, not_allowed, time_warning, time_limit.
    public var result: String
    /// What carried the keys: rfc4733, sip_info, audio.
    public var source: String?
    /// How many keys the entry had (never the keys).
    public var keys: Int?
    public var caller: String?
    /// A command's exit, the lock-out, an error.
    public var detail: String?

    public init(callId: String, action: String?, result: String, source: String?, keys: Int?, caller: String?, detail: String?) {
        self.callId = callId
        self.action = action
        self.result = result
        self.source = source
        self.keys = keys
        self.caller = caller
        self.detail = detail
    }
}

/// The fields of `call_ended`.
public struct CallEndReport: Sendable, Equatable {
    public var callId: String
    public var direction: String
    /// The final status (FINISH, BUSY, FAILED).
    public var status: String
    public var declined: Bool
    public var info: String?
    /// Media statistics, when the call had media.
    public var stats: JSONValue?
    public var recording: String?
    /// Seconds talked, when it was answered.
    public var durationSeconds: Double?
    /// The `CallEndResult` raw value.
    public var endResult: String
    public var displayName: String?

    public init(callId: String, direction: String, status: String, declined: Bool, info: String?, stats: JSONValue?,
                recording: String?, durationSeconds: Double?, endResult: String, displayName: String?)
    {
        self.callId = callId
        self.direction = direction
        self.status = status
        self.declined = declined
        self.info = info
        self.stats = stats
        self.recording = recording
        self.durationSeconds = durationSeconds
        self.endResult = endResult
        self.displayName = displayName
    }
}

/// A step of a call's media, the `step` of a `media` event.
public enum MediaProgress: Sendable, Equatable {
    /// `ice_connected` with the candidate pair types, e.g. `host->host`.
    case iceConnected(pair: String)
    /// `dtls_connected` with the SRTP profile.
    case dtlsConnected(profile: String)
    /// `first_audio`: milliseconds from our answer (or offer) to the first decoded audio; `time_us`:
    /// when it was decoded, µs since the Unix epoch (as `resumed`'s, for push → first audio).
    case firstAudio(latencyMs: Double?, timeMicroseconds: Int64? = nil)
}
