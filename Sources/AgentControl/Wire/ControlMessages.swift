import WCSJSON

/// Who is on the other end of a control connection (from `SO_PEERCRED`).
public struct PeerCredentials: Sendable, Equatable {
    /// The peer's process id (as seen in our PID namespace).
    public let pid: Int32
    /// The peer's effective user id.
    public let uid: UInt32
    /// The peer's effective group id.
    public let gid: UInt32

    /// Creates credentials.
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}

/// One request read from a control client: `{"id": 1, "verb": "status", "args": {...}}`.
public struct ControlRequest: Sendable, Equatable {
    /// The client's id (a number or a string), echoed in the response.
    public let id: JSONValue
    /// What to do, e.g. `status`, `answer`, `hangup`.
    public let verb: String
    /// The arguments: always an object (empty when the client sent none).
    public let args: JSONValue
    /// The connected client.
    public let peer: PeerCredentials

    /// Creates a request.
    public init(id: JSONValue, verb: String, args: JSONValue = [:], peer: PeerCredentials) {
        self.id = id
        self.verb = verb
        self.args = args
        self.peer = peer
    }
}

/// The handler's answer to a request. The server adds the request id on the wire:
/// `{"id": 1, "ok": true, "result": ...}` or `{"id": 1, "ok": false, "error": "...", "code": "..."}`.
public enum ControlResponse: Sendable, Equatable {
    /// Success with a result value (usually an object).
    case ok(JSONValue)
    /// Failure with a machine-readable `code` (see `ControlErrorCode`) and a human `message`.
    case failure(code: String, message: String)
}

/// The `code` strings the server's own framing uses (the daemon's verbs use `ControlFailureCode`).
/// Kept as strings so the socket server's interface (`ControlResponse.failure(code:message:)`) stays as it was.
public enum ControlErrorCode {
    /// The line was not a valid request (bad JSON, missing verb, bad id or args).
    public static let badRequest = ControlFailureCode.badRequest.rawValue
    /// The peer is not allowed to use the socket (sent once, then the connection is closed).
    public static let permissionDenied = ControlFailureCode.permissionDenied.rawValue
    /// A request line exceeded the size limit (the connection is closed).
    public static let lineTooLong = ControlFailureCode.lineTooLong.rawValue
    /// The verb is not known.
    public static let unknownVerb = ControlFailureCode.unknownVerb.rawValue
    /// The handler failed unexpectedly.
    public static let internalError = ControlFailureCode.internalError.rawValue
    /// The connection cap was reached (`DescriptorBudget`); the connection is closed.
    public static let tooManyClients = ControlFailureCode.tooManyClients.rawValue
}
