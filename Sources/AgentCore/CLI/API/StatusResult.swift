import WCSSession

/// `status` (and `sleep`): the daemon's state. Never contains the token, only its age.
/// Every key is always present (`null` when unknown), as `status --json` always printed it.
struct StatusResult: Codable, Sendable, Equatable {
    /// `connecting`, `online`, `reconnecting`, `asleep`, `failed`, `stopped`.
    var state: String
    var server: String
    /// The session state machine's state (`registered`, `established`, ...).
    var sessionState: String
    var registered: Bool
    var hasToken: Bool
    /// Sessions resumed by token since start.
    var resumes: Int
    var answerMode: String
    var logLevel: String
    var calls: [JSONValue]
    @Nullable var connectedSince: String?
    @Nullable var tokenAgeSeconds: Int?
    @Nullable var sessionId: String?
    @Nullable var sipLogin: String?
    @Nullable var lastError: String?
    @Nullable var nextRetryInSeconds: Double?

    enum CodingKeys: String, CodingKey {
        case state, server, registered, resumes, calls
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
struct ReconnectResult: Codable, Sendable, Equatable {
    var status: StatusResult
    var outcome: String?
    var push: String?
    var callId: String?

    enum CodingKeys: String, CodingKey {
        case outcome, push
        case callId = "call_id"
    }

    init(status: StatusResult, outcome: String?, push: String? = nil, callId: String? = nil) {
        self.status = status
        self.outcome = outcome
        self.push = push
        self.callId = callId
    }

    init(from decoder: Decoder) throws {
        status = try StatusResult(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        outcome = try container.decodeIfPresent(String.self, forKey: .outcome)
        push = try container.decodeIfPresent(String.self, forKey: .push)
        callId = try container.decodeIfPresent(String.self, forKey: .callId)
    }

    func encode(to encoder: Encoder) throws {
        try status.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(outcome, forKey: .outcome)
        try container.encodeIfPresent(push, forKey: .push)
        try container.encodeIfPresent(callId, forKey: .callId)
    }
}
