import FoundationEssentials

/// A JSON value that is `Sendable`, `Equatable` and `Codable` (JSONValue+Codable.swift).
///
/// In its own module with FoundationEssentials only (no ICU, no Foundation), so the lean `wcs-agent`
/// front and the control protocol (AgentControl) carry the same value as the signaling (WCSSession).
///
/// The WCS protocol is loosely typed (fields may be absent, `null`, a string or a number), so
/// messages are first decoded into `JSONValue` and then read tolerantly into typed values.
/// Text goes in and out through `JSONParser` and `JSONWriter`, not Codable: JSONDecoder's first
/// use was a large share of the lean front's start, and it ran on every message in the daemon.
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

    /// Parses UTF-8 JSON text. Throws `JSONValue.ParseError` on malformed input (`JSONParser` says
    /// what is accepted).
    public static func parse(_ text: String) throws -> JSONValue {
        var text = text
        return try text.withUTF8 { try parse($0) }
    }

    /// Parses UTF-8 JSON data. Throws `JSONValue.ParseError` on malformed input.
    public static func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { try parse($0.bindMemory(to: UInt8.self)) }
    }

    /// Parses UTF-8 JSON bytes. Throws `JSONValue.ParseError` on malformed input.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
        var parser = JSONParser(bytes)
        return try parser.parseDocument()
    }

    /// Compact JSON text with sorted keys (stable output for logs and tests; `JSONWriter` gives
    /// the exact form). `"null"` for a value holding a NaN or an infinity.
    public func serialized() -> String {
        var writer = JSONWriter()
        guard writer.write(self) else { return "null" }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The error thrown for text that is not JSON.
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public let description: String
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
