import WCSJSON

/// `status` (and `sleep`): the daemon's state. Never contains the token, only its age.
/// Every key is always present (`null` when unknown), as `status --json` always printed it.
public struct StatusResult: Codable, Sendable, Equatable {
    /// `connecting`, `online`, `reconnecting`, `asleep`, `failed`, `stopped`.
    public var state: String
    public var server: String
    /// The session state machine's state (`registered`, `established`, ...).
    public var sessionState: String
    public var registered: Bool
    public var hasToken: Bool
    /// Sessions resumed by token since start.
    public var resumes: Int
    public var answerMode: String
    public var logLevel: String
    public var calls: [JSONValue]
    @Nullable public var connectedSince: String?
    @Nullable public var tokenAgeSeconds: Int?
    @Nullable public var sessionId: String?
    @Nullable public var sipLogin: String?
    @Nullable public var lastError: String?
    @Nullable public var nextRetryInSeconds: Double?
    /// Sleep and keep-time refreshes (`SleepStatus`); null from a daemon that predates it.
    @Nullable public var sleep: SleepStatus?

    /// The `state` of a daemon whose session is up (AgentCore's `AgentPhase.online`).
    public static let online = "online"

    /// Creates the value.
    public init(state: String, server: String, sessionState: String, registered: Bool, hasToken: Bool, resumes: Int,
                answerMode: String, logLevel: String, calls: [JSONValue], connectedSince: String?, tokenAgeSeconds: Int?,
                sessionId: String?, sipLogin: String?, lastError: String?, nextRetryInSeconds: Double?,
                sleep: SleepStatus? = nil) {
        self.state = state
        self.server = server
        self.sessionState = sessionState
        self.registered = registered
        self.hasToken = hasToken
        self.resumes = resumes
        self.answerMode = answerMode
        self.logLevel = logLevel
        self.calls = calls
        self.connectedSince = connectedSince
        self.tokenAgeSeconds = tokenAgeSeconds
        self.sessionId = sessionId
        self.sipLogin = sipLogin
        self.lastError = lastError
        self.nextRetryInSeconds = nextRetryInSeconds
        self.sleep = sleep
    }

    enum CodingKeys: String, CodingKey {
        case state, server, registered, resumes, calls, sleep
        case sessionState = "session_state"
        case hasToken = "has_token"
        case answerMode = "answer_mode"
        case logLevel = "log_level"
        case connectedSince = "connected_since"
        case tokenAgeSeconds = "token_age_seconds"
        case sessionId = "session_id"
        case sipLogin = "sip_login"
        case lastError = "last_error"
        case nextRetryInSeconds = "next_retry_in_seconds"
    }
}

/// `reconnect`: the status after the attempt plus its `outcome` (`resumed`, `already_online`...,
/// `null` when a push needed no wake). With a push also `push` (`ringing`, `missed`, `duplicate`,
/// `not_connected`) and the push's `call_id`.
public struct ReconnectResult: Codable, Sendable, Equatable {
    public var status: StatusResult
    public var outcome: String?
    public var push: String?
    public var callId: String?

    enum CodingKeys: String, CodingKey {
        case outcome, push
        case callId = "call_id"
    }

    /// Creates the value.
    public init(status: StatusResult, outcome: String?, push: String? = nil, callId: String? = nil) {
        self.status = status
        self.outcome = outcome
        self.push = push
        self.callId = callId
    }

    public init(from decoder: Decoder) throws {
        status = try StatusResult(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        outcome = try container.decodeIfPresent(String.self, forKey: .outcome)
        push = try container.decodeIfPresent(String.self, forKey: .push)
        callId = try container.decodeIfPresent(String.self, forKey: .callId)
    }

    public func encode(to encoder: Encoder) throws {
        try status.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(outcome, forKey: .outcome)
        try container.encodeIfPresent(push, forKey: .push)
        try container.encodeIfPresent(callId, forKey: .callId)
    }
}
