import WCSSession

// The `args` object of each request, one type per shape. Plain values, built by the CLI or the
// prompt and decoded by the daemon's dispatcher (docs/control-protocol.md shows each on the wire).

/// For verbs that take no arguments (`status`, `sleep`, `calls`, `reload`). Any members are ignored.
struct NoArguments: Codable, Sendable, Equatable {}

/// `hello`: the control protocol version the client speaks, and its program version for logs.
struct HelloArguments: Codable, Sendable, Equatable {
    var protocolVersion: Int
    var client: String?

    enum CodingKeys: String, CodingKey {
        case protocolVersion = "protocol"
        case client
    }
}

/// `answer`, `decline`, `hangup`, `hold`, `resume`, `mute`, `unmute`: which call (default: the
/// verb's natural choice, e.g. the oldest ringing call for `answer`).
struct CallArguments: Codable, Sendable, Equatable {
    var callId: String?

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
    }
}

/// `call`: the number to call.
struct DialArguments: Codable, Sendable, Equatable {
    var number: String
}

/// `dtmf`: digits, how to send them (`rfc2833`, the default, or `info`), and which call.
struct DTMFArguments: Codable, Sendable, Equatable {
    var digits: String
    var type: String?
    var callId: String?

    enum CodingKeys: String, CodingKey {
        case digits, type
        case callId = "call_id"
    }
}

/// `transfer`: the target and which call.
struct TransferArguments: Codable, Sendable, Equatable {
    var target: String
    var callId: String?

    enum CodingKeys: String, CodingKey {
        case target
        case callId = "call_id"
    }
}

/// `reconnect`: optionally a raw push payload `{"id", "uuid", "handle"}` (then the wake happens
/// once per call id, and a call that already ended is recorded as missed).
struct ReconnectArguments: Codable, Sendable, Equatable {
    var push: JSONValue?
}

/// Arguments that name a call (the prompt updates that call with the verb's result).
protocol CallTargeting {
    var callId: String? { get }
}

extension CallArguments: CallTargeting {}
extension DTMFArguments: CallTargeting {}
extension TransferArguments: CallTargeting {}
