/// A `Decodable` value straight from a `JSONValue`, without JSON text in between.
///
/// It decodes what `JSONDecoder` (default strategies) decoded from the value's text, and fails
/// where it failed with the same `DecodingError` case, type and coding path (the control protocol
/// words its `bad_request` messages from them): a missing key is `keyNotFound`; `null` where a
/// value is needed is `valueNotFound` (but `typeMismatch` for a `Bool`, as JSONDecoder had it);
/// another kind of value is `typeMismatch` (objects and arrays named `Dictionary<String, Any>` and
/// `Array<Any>`); an integer field given a number with a fraction or out of the type's range is
/// `dataCorrupted` at the top ("The given data was not valid JSON."). A value type; any thread.
public struct JSONValueDecoder {
    /// Creates a decoder.
    public init() {}

    /// `T` from `json`. Throws `DecodingError` as described above.
    public func decode<T: Decodable>(_ type: T.Type, from json: JSONValue) throws -> T {
        try NodeDecoder(value: json, codingPath: []).unbox(json, as: type, at: [])
    }
}

/// The `Decoder` over one value of the tree (see `JSONValueDecoder`).
struct NodeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case .object(let members): return KeyedDecodingContainer(KeyedValueContainer<Key>(members: members, codingPath: codingPath))
        case .null:
            throw DecodingError.valueNotFound([String: Any].self, context(codingPath,
                                                                           "Cannot get keyed decoding container -- found null value instead"))
        default: throw mismatch([String: Any].self, "Dictionary<String, Any>", value, codingPath)
        }
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        switch value {
        case .array(let items): return UnkeyedValueContainer(items: items, codingPath: codingPath)
        case .null:
            throw DecodingError.valueNotFound([Any].self, context(codingPath,
                                                                   "Cannot get unkeyed decoding container -- found null value instead"))
        default: throw mismatch([Any].self, "Array<Any>", value, codingPath)
        }
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer {
        SingleValueContainer(value: value, codingPath: codingPath)
    }

    /// `value` (at `path`) as `T`: scalars by hand, anything else through its own `init(from:)`.
    func unbox<T: Decodable>(_ value: JSONValue, as type: T.Type, at path: [CodingKey]) throws -> T {
        // Concrete types only: a cast to a protocol existential would scan the conformance tables.
        switch type {
        case is Bool.Type:
            guard case .bool(let flag) = value else { throw mismatch(Bool.self, "Bool", value, path) }
            return flag as! T
        case is String.Type:
            guard case .string(let text) = value else { throw scalarFailure(String.self, value, path) }
            return text as! T
        case is Double.Type:
            guard case .number(let number) = value else { throw scalarFailure(Double.self, value, path) }
            return number as! T
        case is Float.Type:
            guard case .number(let number) = value else { throw scalarFailure(Float.self, value, path) }
            return Float(number) as! T
        default:
            if let integer = try unboxInteger(value, as: type, at: path) { return integer }
            return try T(from: NodeDecoder(value: value, codingPath: path))
        }
    }

    private func unboxInteger<T>(_ value: JSONValue, as type: T.Type, at path: [CodingKey]) throws -> T? {
        func exact<I: FixedWidthInteger>(_: I.Type) throws -> T {
            guard case .number(let number) = value else { throw scalarFailure(I.self, value, path) }
            guard let integer = I(exactly: number) else {
                throw DecodingError.dataCorrupted(context([], "The given data was not valid JSON."))
            }
            return integer as! T
        }
        switch type {
        case is Int.Type: return try exact(Int.self)
        case is Int64.Type: return try exact(Int64.self)
        case is Int32.Type: return try exact(Int32.self)
        case is UInt.Type: return try exact(UInt.self)
        case is UInt64.Type: return try exact(UInt64.self)
        case is UInt32.Type: return try exact(UInt32.self)
        case is Int16.Type: return try exact(Int16.self)
        case is Int8.Type: return try exact(Int8.self)
        case is UInt16.Type: return try exact(UInt16.self)
        case is UInt8.Type: return try exact(UInt8.self)
        default: return nil
        }
    }
}

/// The error for a scalar of type `type` where `value` is: `null` is "not found", anything else a mismatch.
func scalarFailure(_ type: Any.Type, _ value: JSONValue, _ path: [CodingKey]) -> DecodingError {
    if value == .null {
        return .valueNotFound(type, context(path, "Cannot get value of type \(type) -- found null value instead"))
    }
    return mismatch(type, "\(type)", value, path)
}

func mismatch(_ type: Any.Type, _ name: String, _ value: JSONValue, _ path: [CodingKey]) -> DecodingError {
    let found = switch value {
    case .null: "null"
    case .bool: "bool"
    case .number: "number"
    case .string: "a string"
    case .array: "an array"
    case .object: "a dictionary"
    }
    return .typeMismatch(type, context(path, "Expected to decode \(name) but found \(found) instead."))
}

func context(_ path: [CodingKey], _ description: String) -> DecodingError.Context {
    DecodingError.Context(codingPath: path, debugDescription: description)
}
