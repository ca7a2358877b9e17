import WCSSession

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

/// Error codes used on the control socket. Handlers may use their own codes too.
public enum ControlErrorCode {
    /// The line was not a valid request (bad JSON, missing verb, bad id or args).
    public static let badRequest = "bad_request"
    /// The peer is not allowed to use the socket (sent once, then the connection is closed).
    public static let permissionDenied = "permission_denied"
    /// A request line exceeded the size limit (the connection is closed).
    public static let lineTooLong = "line_too_long"
    /// The verb is not known (for handlers to use).
    public static let unknownVerb = "unknown_verb"
    /// The handler failed unexpectedly (for handlers to use).
    public static let internalError = "internal_error"
}
