import WCSSession

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
