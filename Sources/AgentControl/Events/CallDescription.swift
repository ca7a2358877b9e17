import WCSJSON

/// A call's identity and server-side status (a value, built on the `CallManager` actor and read
/// anywhere): the fields of `incoming_call` and `call_status`
/// events and the start of each `calls` entry. JSON keys are a stable interface for scripts:
/// `call_id, direction, status, started, caller?, callee?, display_name?, info?` (absent when unknown;
/// `direction` and `started` are absent only in the `call_status` of a call whose session was lost).
public struct CallDescription: Codable, Sendable, Equatable {
    public var callId: String
    /// `incoming` or `outgoing`.
    public var direction: String?
    /// The server's status, e.g. `RING`, `ESTABLISHED`, `HOLD`, `FINISH`.
    public var status: String
    /// ISO 8601 time the call appeared.
    public var started: String?
    public var caller: String?
    public var callee: String?
    public var displayName: String?
    public var info: String?

    enum CodingKeys: String, CodingKey {
        case callId = "call_id", direction, status, started, caller, callee, displayName = "display_name", info
    }

    /// The fields as a JSON object (absent optionals omitted).
    public var fields: [String: JSONValue] {
        var o: [String: JSONValue] = ["call_id": .string(callId), "status": .string(status)]
        if let direction { o["direction"] = .string(direction) }
        if let started { o["started"] = .string(started) }
        if let caller { o["caller"] = .string(caller) }
        if let callee { o["callee"] = .string(callee) }
        if let displayName { o["display_name"] = .string(displayName) }
        if let info { o["info"] = .string(info) }
        return o
    }

    /// Reads the fields back from a JSON object; nil without the required ones.
    public init?(fields o: [String: JSONValue]) {
        guard let id = o["call_id"]?.stringValue, let status = o["status"]?.stringValue else { return nil }
        self.init(callId: id, direction: o["direction"]?.stringValue, status: status, started: o["started"]?.stringValue,
                  caller: o["caller"]?.stringValue,
                  callee: o["callee"]?.stringValue, displayName: o["display_name"]?.stringValue, info: o["info"]?.stringValue)
    }

    /// Creates a description.
    public init(callId: String, direction: String?, status: String, started: String?, caller: String? = nil,
                callee: String? = nil, displayName: String? = nil, info: String? = nil)
    {
        self.callId = callId
        self.direction = direction
        self.status = status
        self.started = started
        self.caller = caller
        self.callee = callee
        self.displayName = displayName
        self.info = info
    }
}
