/// Every `code` a daemon of this version puts in `{"ok": false, "code": ...}`. Clients must still
/// accept codes they do not know (a newer daemon may add some); docs/control-protocol.md lists them.
public enum ControlFailureCode: String, Sendable, Codable, CaseIterable {
    /// The line or its arguments are not a valid request (bad JSON, missing verb, wrong argument type).
    case badRequest = "bad_request"
    /// The peer may not use the socket (sent once, then the connection is closed).
    case permissionDenied = "permission_denied"
    /// A request line exceeded the size limit (the connection is closed).
    case lineTooLong = "line_too_long"
    /// The daemon does not know the verb.
    case unknownVerb = "unknown_verb"
    /// `hello` named a control protocol version this daemon does not speak.
    case protocolMismatch = "protocol_mismatch"
    /// A call verb failed: no such call, wrong state, no connection, bad digits...
    case callError = "call_error"
    /// `sleep` was refused (e.g. calls in progress).
    case cannotSleep = "cannot_sleep"
    /// `reload` read a configuration that does not load; the running one stays.
    case reloadFailed = "reload_failed"
    /// The daemon failed unexpectedly.
    case internalError = "internal_error"
    /// The daemon holds as many control connections as its descriptor budget allows: sent to the
    /// idle client evicted for a newcomer, or to the newcomer when every client is busy; the
    /// connection is then closed.
    case tooManyClients = "too_many_clients"
}

/// A verb handler's typed failure; the dispatcher turns it into `ControlResponse.failure`.
/// Built and thrown inside the daemon's request tasks; a plain value, safe to send anywhere.
public struct ControlFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The machine-readable code.
    public let code: ControlFailureCode
    /// The human message (never contains a secret).
    public let message: String

    /// Creates a failure.
    public init(_ code: ControlFailureCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) [\(code.rawValue)]" }

    /// The wire response for this failure.
    public var response: ControlResponse { .failure(code: code.rawValue, message: message) }
}
