import WCSSession

// The `result` object of each verb's success response, one type per shape. Keys are the wire's
// (snake_case) and stay stable for scripts reading `--json`; docs/control-protocol.md lists them.
// Call entries stay `JSONValue` objects here: their fields belong to the call table (AgentCore/Calls).

/// `hello`: the daemon's protocol version and program version.
struct HelloResult: Codable, Sendable, Equatable {
    var protocolVersion: Int
    var version: String

    enum CodingKeys: String, CodingKey {
        case protocolVersion = "protocol"
        case version
    }
}

/// `answer`, `decline`, `hangup`, `call`, `hold`, `resume`: the call acted on.
struct CallResult: Codable, Sendable, Equatable {
    var callId: String

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
    }
}

/// `mute`, `unmute`: the call and its new mute state.
struct MuteResult: Codable, Sendable, Equatable {
    var callId: String
    var muted: Bool

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
        case muted
    }
}

/// `dtmf`: the call, the digits, and how they went (`in_band`, `server_rfc2833`, `server_info`).
struct DTMFResult: Codable, Sendable, Equatable {
    var callId: String
    var digits: String
    var via: String

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
        case digits, via
    }
}

/// `transfer`: the call and the target (progress follows as `transfer` events).
struct TransferResult: Codable, Sendable, Equatable {
    var callId: String
    var target: String

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
        case target
    }
}

/// `calls`: every call the daemon knows, oldest first.
struct CallsResult: Codable, Sendable, Equatable {
    var calls: [JSONValue]
}

/// `reload`: what changed and how it was applied (config keys, never values).
struct ReloadResult: Codable, Sendable, Equatable {
    /// One line: which keys changed and how they apply ("no changes" when none).
    var summary: String
    /// Keys applied in place.
    var applied: [String]
    /// Keys that needed a new connection resuming the session by token.
    var reconnect: [String]
    /// Keys that needed a fresh login (a new server session).
    var relogin: [String]
    /// Keys kept at their running values until a restart.
    var needsRestart: [String]
    /// Whether the daemon opened a new connection for this reload.
    var reconnected: Bool

    enum CodingKeys: String, CodingKey {
        case summary, applied, reconnect, relogin, reconnected
        case needsRestart = "needs_restart"
    }

    init(_ plan: ConfigReloadPlan) {
        summary = plan.summary
        applied = plan.live
        reconnect = plan.reconnect
        relogin = plan.relogin
        needsRestart = plan.needsRestart
        reconnected = plan.needsNewSession
    }
}
