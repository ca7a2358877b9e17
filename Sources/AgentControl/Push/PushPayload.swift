import FoundationEssentials
import WCSJSON

/// The raw push a WCS server sends when a call rings for a detached session:
/// `{"id": callId, "uuid": ..., "handle": caller}`. Extra fields are ignored.
public struct PushPayload: Sendable, Equatable {
    /// The largest payload accepted (a real push is about 150 bytes).
    public static let maximumSize = 16 * 1024

    /// The call id (`id`).
    public let callId: String
    /// The server's push uuid (`uuid`), when present.
    public let uuid: String?
    /// The caller (`handle`), when present.
    public let handle: String?

    /// A payload with these fields.
    public init(callId: String, uuid: String? = nil, handle: String? = nil) {
        self.callId = callId
        self.uuid = uuid
        self.handle = handle
    }

    /// Parses the raw bytes of a push. Throws `PushPayloadError` for anything that is not a JSON
    /// object with a non-empty `id`.
    public init(data: Data) throws(PushPayloadError) {
        guard data.count <= Self.maximumSize else {
            throw PushPayloadError("push payload too large (\(data.count) bytes, at most \(Self.maximumSize))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw PushPayloadError("push payload is not UTF-8 text")
        }
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw PushPayloadError("push payload is empty") }
        let json: JSONValue
        do {
            json = try JSONValue.parse(trimmed)
        } catch {
            throw PushPayloadError("push payload is not valid JSON (expected {\"id\": callId, \"uuid\": ..., \"handle\": caller})")
        }
        try self.init(json: json)
    }

    /// Reads the fields of a parsed push. `id`, and `uuid` and `handle` when present, must be JSON
    /// strings, as WCS sends them (its call ids are UUID strings): `{"id": 1}` is not a WCS push.
    public init(json: JSONValue) throws(PushPayloadError) {
        guard let object = json.objectValue else {
            throw PushPayloadError("push payload is not a JSON object (expected {\"id\": callId, \"uuid\": ..., \"handle\": caller})")
        }
        func text(_ key: String) throws(PushPayloadError) -> String? {
            guard let value = object[key], !value.isNull else { return nil }
            guard case .string(let s) = value else {
                throw PushPayloadError("push payload field \"\(key)\" must be a string")
            }
            return s
        }
        guard let id = try text("id") else {
            throw PushPayloadError("push payload has no \"id\" (the call id)")
        }
        let callId = id.trimmingSpaces()
        guard !callId.isEmpty, callId.count <= 256, !callId.contains(where: \.isNewline) else {
            throw PushPayloadError("push payload \"id\" must be a non-empty call id of at most 256 characters")
        }
        self.init(callId: callId, uuid: try text("uuid"), handle: try text("handle"))
    }

    /// The payload as a JSON object (`id`, `uuid`, `handle`), as the control request carries it.
    public var json: JSONValue {
        var o: [String: JSONValue] = ["id": .string(callId)]
        if let uuid { o["uuid"] = .string(uuid) }
        if let handle { o["handle"] = .string(handle) }
        return .object(o)
    }
}

/// A push payload that cannot be used, with a message for the operator.
public struct PushPayloadError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
