import WCSJSON

// The `args` object of each request, one type per shape. Plain values, built by the CLI or the
// prompt and decoded by the daemon's dispatcher (docs/control-protocol.md shows each on the wire).

/// For verbs that take no arguments (`status`, `sleep`, `calls`, `reload`). Any members are ignored.
public struct NoArguments: Codable, Sendable, Equatable {
    /// Creates the value.
    public init() {}
}

/// `hello`: the control protocol version the client speaks, and its program version for logs.
public struct HelloArguments: Codable, Sendable, Equatable {
    public var protocolVersion: Int
    public var client: String?

    /// Creates the value.
    public init(protocolVersion: Int, client: String?) {
        self.protocolVersion = protocolVersion
        self.client = client
    }

    enum CodingKeys: String, CodingKey {
        case protocolVersion = "protocol"
        case client
    }
}

/// `answer`, `decline`, `hangup`, `hold`, `resume`, `mute`, `unmute`: which call (default: the
/// verb's natural choice, e.g. the oldest ringing call for `answer`).
public struct CallArguments: Codable, Sendable, Equatable {
    public var callId: String?

    /// Creates the value.
    public init(callId: String?) { self.callId = callId }

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
    }
}

/// `call`: the number to call.
public struct DialArguments: Codable, Sendable, Equatable {
    public var number: String

    /// Creates the value.
    public init(number: String) { self.number = number }
}

/// `dtmf`: digits, how to send them (`rfc2833`, the default, or `info`), and which call.
public struct DTMFArguments: Codable, Sendable, Equatable {
    public var digits: String
    public var type: String?
    public var callId: String?

    /// Creates the value.
    public init(digits: String, type: String?, callId: String?) {
        self.digits = digits
        self.type = type
        self.callId = callId
    }

    enum CodingKeys: String, CodingKey {
        case digits, type
        case callId = "call_id"
    }
}

/// `transfer`: the target and which call.
public struct TransferArguments: Codable, Sendable, Equatable {
    public var target: String
    public var callId: String?

    /// Creates the value.
    public init(target: String, callId: String?) {
        self.target = target
        self.callId = callId
    }

    enum CodingKeys: String, CodingKey {
        case target
        case callId = "call_id"
    }
}

/// `reconnect`: optionally a raw push payload `{"id", "uuid", "handle"}` (then the wake happens
/// once per call id, and a call that already ended is recorded as missed).
public struct ReconnectArguments: Codable, Sendable, Equatable {
    public var push: JSONValue?

    /// Creates the value.
    public init(push: JSONValue? = nil) { self.push = push }
}

/// Arguments that name a call (the prompt updates that call with the verb's result).
public protocol CallTargeting {
    var callId: String? { get }
}

extension CallArguments: CallTargeting {}
extension DTMFArguments: CallTargeting {}
extension TransferArguments: CallTargeting {}

/// How `dtmf` sends digits (the `type` argument).
public enum DTMFMethod: String, Sendable {
    /// In-band RFC 4733 telephone events in our RTP (the server's RFC2833 `sendDtmf` when the call
    /// negotiated no telephone-event).
    case rfc2833
    /// SIP INFO, sent by the server.
    case info
}
