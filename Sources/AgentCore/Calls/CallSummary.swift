import WCSSession

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

/// One entry of `calls` (and of `status`'s `calls`), a value made by `CallManager.list()`: the description plus media, hold and mute
/// state. JSON: the `CallDescription` keys plus `state` (our `CallState`: `ringing`, `answering`,
/// `connecting_media`, `established`, `held`, `ending`), `media, held, muted, duration_seconds`
/// (null until answered), `recording?` and `stats?` (while media is open).
public struct CallSummary: Codable, Sendable, Equatable {
    public var call: CallDescription
    /// Where the call stands in our lifecycle (nil only when read from an older daemon).
    public var state: CallState?
    public var media: Bool
    public var held: Bool
    public var muted: Bool
    public var durationSeconds: Double?
    public var recording: String?
    public var stats: JSONValue?

    public init(call: CallDescription, state: CallState? = nil, media: Bool, held: Bool, muted: Bool,
                durationSeconds: Double?, recording: String?, stats: JSONValue?)
    {
        self.call = call
        self.state = state
        self.media = media
        self.held = held
        self.muted = muted
        self.durationSeconds = durationSeconds
        self.recording = recording
        self.stats = stats
    }

    /// The JSON object as `calls --json` prints it.
    public var json: JSONValue {
        var o = call.fields
        if let state { o["state"] = .string(state.rawValue) }
        o["media"] = .bool(media)
        o["held"] = .bool(held)
        o["muted"] = .bool(muted)
        o["duration_seconds"] = durationSeconds.map(JSONValue.number) ?? .null
        if let recording { o["recording"] = .string(recording) }
        if let stats { o["stats"] = stats }
        return .object(o)
    }

    public init(from decoder: Decoder) throws {
        let value = try JSONValue(from: decoder)
        guard let o = value.objectValue, let call = CallDescription(fields: o) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a call summary"))
        }
        self.call = call
        state = o["state"]?.stringValue.flatMap(CallState.init(rawValue:))
        media = o["media"]?.boolValue ?? false
        held = o["held"]?.boolValue ?? false
        muted = o["muted"]?.boolValue ?? false
        if case .number(let n)? = o["duration_seconds"] { durationSeconds = n }
        recording = o["recording"]?.stringValue
        stats = o["stats"]
    }

    public func encode(to encoder: Encoder) throws {
        try json.encode(to: encoder)
    }
}
