import FoundationEssentials

/// A JSON value that is `Sendable`, `Equatable` and `Codable`.
///
/// In its own module with FoundationEssentials only (no ICU, no Foundation), so the lean `wcs-agent`
/// front and the control protocol (AgentControl) carry the same value as the signaling (WCSSession).
///
/// The WCS protocol is loosely typed (fields may be absent, `null`, a string or a number), so
/// messages are first decoded into `JSONValue` and then read tolerantly into typed values.
public enum JSONValue: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The member `key` of an object, or `nil` for any other value or a missing key.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array, or `nil` when out of range or not an array.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }

    /// The value as a string; numbers and booleans are rendered as text (tolerant reading).
    public var stringValue: String? {
        switch self {
        case .string(let s): return s
        case .number(let n): return n.rounded() == n && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .bool(let b): return b ? "true" : "false"
        default: return nil
        }
    }

    /// The value as an integer; numeric strings are accepted (e.g. `"sipPort": "5060"`).
    public var intValue: Int? {
        switch self {
        case .number(let n): return n.rounded() == n && abs(n) < 9e15 ? Int(n) : nil
        case .string(let s): return Int(s.trimmingSpaces())
        default: return nil
        }
    }

    /// The value as a boolean; the strings "true"/"false" are accepted.
    public var boolValue: Bool? {
        switch self {
        case .bool(let b): return b
        case .string(let s): return s == "true" ? true : (s == "false" ? false : nil)
        default: return nil
        }
    }

    /// The members when the value is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements when the value is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// `true` for `.null`.
    public var isNull: Bool { self == .null }

    /// Parses UTF-8 JSON text. Throws `JSONValue.ParseError` on malformed input.
    public static func parse(_ text: String) throws -> JSONValue {
        try parse(Data(text.utf8))
    }

    /// Parses UTF-8 JSON data. Throws `JSONValue.ParseError` on malformed input.
    public static func parse(_ data: Data) throws -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ParseError(description: "malformed JSON: \(Self.reason(error))")
        }
    }

    /// Why a decoding failed, in words (FoundationEssentials has no `localizedDescription`).
    private static func reason(_ error: Error) -> String {
        guard case .dataCorrupted(let context)? = error as? DecodingError else { return "\(error)" }
        return context.debugDescription
    }

    /// Compact JSON text with sorted keys (stable output for logs and tests).
    public func serialized() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The error thrown for text that is not JSON.
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }
}

extension JSONValue: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? container.decode(Double.self) {
            self = .number(n)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else if let o = try? container.decode([String: JSONValue].self) {
            self = .object(o)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let n):
            if n.rounded() == n && abs(n) < 9e15 { try container.encode(Int64(n)) } else { try container.encode(n) }
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}
