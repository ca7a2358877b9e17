import WCSJSON

/// An `AgentEvent` with the time it was published: what subscribers receive. On the wire it is
/// one flat JSON object, the event's fields plus `type` and `time` (ISO 8601 with milliseconds).
/// Codable through that object, so `events --json` output stays what it has always been.
/// A value: stamped on the publishing actor (`Agent`, `CallManager`), decoded on the subscriber's thread.
public struct TimedAgentEvent: Codable, Sendable, Equatable {
    public var time: String
    public var event: AgentEvent

    public init(_ event: AgentEvent, time: String) {
        self.event = event
        self.time = time
    }

    /// Reads a published event; nil when it is not an object with a `type`.
    public init?(json: JSONValue) {
        guard var o = json.objectValue, let type = o["type"]?.stringValue else { return nil }
        let time = o["time"]?.stringValue ?? ""
        o["type"] = nil
        o["time"] = nil
        self.init(AgentEvent(type: type, fields: o), time: time)
    }

    /// The wire object.
    public var json: JSONValue {
        var o = event.fields
        o["type"] = .string(event.type)
        o["time"] = .string(time)
        return .object(o)
    }

    public init(from decoder: Decoder) throws {
        guard let event = TimedAgentEvent(json: try JSONValue(from: decoder)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an agent event"))
        }
        self = event
    }

    public func encode(to encoder: Encoder) throws {
        try json.encode(to: encoder)
    }
}
