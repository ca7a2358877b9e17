import WCSJSON

/// Converts typed request arguments and results to and from `JSONValue`, the value the socket
/// server and the client carry. Pure functions; keys are spelled on the types (snake_case).
/// Straight between the types and `JSONValue` (`JSONValueEncoder`, `JSONValueDecoder`): the same
/// values and errors as JSONEncoder/JSONDecoder through text gave, without their first-use cost
/// in the lean front (issue 9) or two trips through text per message in the daemon.
public enum ControlCoding {
    /// A Codable value as JSON. Throws `EncodingError` (a NaN, or a value that encodes nothing).
    public static func json<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONValueEncoder().encode(value)
    }

    /// A typed value from JSON. Throws `DecodingError` worded by `describe(_:)`.
    public static func decode<T: Decodable>(_ type: T.Type, from json: JSONValue) throws -> T {
        try JSONValueDecoder().decode(type, from: json)
    }

    /// A short description of a decoding error for a `bad_request` message: which field, what was wrong.
    public static func describe(_ error: Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "the arguments" : "\"\(keys.joined(separator: "."))\""
        }
        switch error {
        case .keyNotFound(let key, _): return "missing \"\(key.stringValue)\""
        case .typeMismatch(let type, let context): return "\(path(context)) must be \(typeName(type))"
        case .valueNotFound(let type, let context): return "\(path(context)) must be \(typeName(type)), not null"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: "a JSON value of another type"
        }
    }
}

/// An optional field that is written as `null` when absent (the synthesized `Codable` leaves it
/// out), so `--json` outputs keep every key they always had. Decodes a missing key as `nil`.
@propertyWrapper
public struct Nullable<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    /// The value, `nil` when absent or `null`.
    public var wrappedValue: Value?

    /// Wraps a value.
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension KeyedDecodingContainer {
    /// A missing key decodes as `nil` rather than an error.
    public func decode<Value>(_ type: Nullable<Value>.Type, forKey key: Key) throws -> Nullable<Value> {
        try decodeIfPresent(type, forKey: key) ?? Nullable(wrappedValue: nil)
    }
}
