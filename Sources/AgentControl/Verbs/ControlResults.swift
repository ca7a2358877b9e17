import WCSJSON

// The `result` object of each verb's success response, one type per shape. Keys are the wire's
// (snake_case) and stay stable for scripts reading `--json`; docs/control-protocol.md lists them.
// Call entries stay `JSONValue` objects here: their fields belong to the call table (AgentCore/Calls).

/// `hello`: the daemon's protocol version and program version.
public struct HelloResult: Codable, Sendable, Equatable {
    public var protocolVersion: Int
    public var version: String

    /// Creates the value.
    public init(protocolVersion: Int, version: String) {
        self.protocolVersion = protocolVersion
        self.version = version
    }

    enum CodingKeys: String, CodingKey {
        case protocolVersion = "protocol"
        case version
    }
}

/// `answer`, `decline`, `hangup`, `call`, `hold`, `resume`: the call acted on.
public struct CallResult: Codable, Sendable, Equatable {
    public var callId: String

    /// Creates the value.
    public init(callId: String) { self.callId = callId }

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
    }
}

/// `mute`, `unmute`: the call and its new mute state.
public struct MuteResult: Codable, Sendable, Equatable {
    public var callId: String
    public var muted: Bool

    /// Creates the value.
    public init(callId: String, muted: Bool) {
        self.callId = callId
        self.muted = muted
    }

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
        case muted
    }
}

/// `dtmf`: the call, the digits, and how they went (`in_band`, `server_rfc2833`, `server_info`).
public struct DTMFResult: Codable, Sendable, Equatable {
    public var callId: String
    public var digits: String
    public var via: String

    /// Creates the value.
    public init(callId: String, digits: String, via: String) {
        self.callId = callId
        self.digits = digits
        self.via = via
    }

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
        case digits, via
    }
}

/// `transfer`: the call and the target (progress follows as `transfer` events).
public struct TransferResult: Codable, Sendable, Equatable {
    public var callId: String
    public var target: String

    /// Creates the value.
    public init(callId: String, target: String) {
        self.callId = callId
        self.target = target
    }

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
        case target
    }
}

/// `calls`: every call the daemon knows, oldest first.
public struct CallsResult: Codable, Sendable, Equatable {
    public var calls: [JSONValue]

    /// Creates the value.
    public init(calls: [JSONValue]) { self.calls = calls }
}

/// `reload`: what changed and how it was applied (config keys, never values).
public struct ReloadResult: Codable, Sendable, Equatable {
    /// One line: which keys changed and how they apply ("no changes" when none).
    public var summary: String
    /// Keys applied in place.
    public var applied: [String]
    /// Keys that needed a new connection resuming the session by token.
    public var reconnect: [String]
    /// Keys that needed a fresh login (a new server session).
    public var relogin: [String]
    /// Keys kept at their running values until a restart.
    public var needsRestart: [String]
    /// Whether the daemon opened a new connection for this reload.
    public var reconnected: Bool

    enum CodingKeys: String, CodingKey {
        case summary, applied, reconnect, relogin, reconnected
        case needsRestart = "needs_restart"
    }

    /// Creates the value.
    public init(summary: String, applied: [String], reconnect: [String], relogin: [String], needsRestart: [String],
                reconnected: Bool) {
        self.summary = summary
        self.applied = applied
        self.reconnect = reconnect
        self.relogin = relogin
        self.needsRestart = needsRestart
        self.reconnected = reconnected
    }
}
