import Foundation

/// A JSON value as the emulator's control API sends and receives it. Literals build it directly:
/// `["login": "1001", "on": true, "delay": 0.5]`.
public enum EmulatorJSON: Sendable, Equatable, Codable, CustomStringConvertible,
    ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([EmulatorJSON])
    case object([String: EmulatorJSON])

    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: EmulatorJSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, EmulatorJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// Parses JSON text (any top-level value).
    public static func parse(_ data: Data) throws -> EmulatorJSON {
        try JSONDecoder().decode(EmulatorJSON.self, from: data)
    }

    /// Compact JSON text with sorted keys.
    public func serialized() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([EmulatorJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: EmulatorJSON].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .number(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }

    /// The member `key` of an object (nil for other values or a missing key).
    public subscript(key: String) -> EmulatorJSON? {
        if case let .object(members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array (nil for other values or out of range).
    public subscript(index: Int) -> EmulatorJSON? {
        if case let .array(elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case let .string(value) = self { return value }
        return nil
    }

    /// The number as Int, if this is an integral number.
    public var intValue: Int? {
        if case let .number(value) = self, value.rounded() == value, abs(value) < 9e15 { return Int(value) }
        return nil
    }

    /// The number, if this is a number.
    public var doubleValue: Double? {
        if case let .number(value) = self { return value }
        return nil
    }

    /// The boolean, if this is a boolean.
    public var boolValue: Bool? {
        if case let .bool(value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [EmulatorJSON]? {
        if case let .array(value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: [String: EmulatorJSON]? {
        if case let .object(value) = self { return value }
        return nil
    }

    /// True for JSON null.
    public var isNull: Bool { self == .null }

    public var description: String { String(decoding: serialized(), as: UTF8.self) }
}
