/// An `Encodable` value straight to a `JSONValue`, without JSON text in between.
///
/// The same value `JSONEncoder` (default strategies) made when its text was parsed back, which is
/// what the control protocol did before (issue 9: the encoder's first use was a large share of the
/// lean front's start, and each request and answer went through text twice): integers and floats
/// become numbers, `nil` through `encodeNil` becomes `null`, a value that encodes nothing at the
/// top is an error, as is a NaN or an infinity. A value type; any thread.
public struct JSONValueEncoder {
    /// Creates an encoder.
    public init() {}

    /// `value` as JSON. Throws `EncodingError.invalidValue` for a NaN or infinite number, or when
    /// `value` encodes nothing.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = EncodedNode()
        try value.encode(to: NodeEncoder(node: root, codingPath: []))
        guard let json = root.json else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: [],
                                                                       debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return json
    }
}

/// One value being encoded: a scalar, or an object or array whose members are nodes themselves
/// (a container hands out child nodes before they are filled).
final class EncodedNode {
    enum Content {
        case unset
        case scalar(JSONValue)
        case object([String: EncodedNode])
        case array([EncodedNode])
    }

    var content = Content.unset

    /// The finished value (nil if nothing was encoded here).
    var json: JSONValue? {
        switch content {
        case .unset: nil
        case .scalar(let value): value
        case .object(let members): .object(members.mapValues { $0.json ?? .object([:]) })
        case .array(let items): .array(items.map { $0.json ?? .object([:]) })
        }
    }

    /// A new member node under `key` (this node becomes an object if it was not one).
    func member(_ key: String) -> EncodedNode {
        let child = EncodedNode()
        if case .object(var members) = content {
            members[key] = child
            content = .object(members)
        } else {
            content = .object([key: child])
        }
        return child
    }

    /// A new element node at the end (this node becomes an array if it was not one).
    func element() -> EncodedNode {
        let child = EncodedNode()
        if case .array(var items) = content {
            items.append(child)
            content = .array(items)
        } else {
            content = .array([child])
        }
        return child
    }

    var count: Int {
        if case .array(let items) = content { return items.count }
        return 0
    }
}

/// A number as JSON, or the error JSONEncoder gave for a NaN or an infinity.
func encodedNumber(_ value: Double, _ original: Any, _ codingPath: [CodingKey]) throws -> JSONValue {
    guard value.isFinite else {
        throw EncodingError.invalidValue(original, EncodingError.Context(codingPath: codingPath,
                                                                          debugDescription: "Unable to encode \(value) directly in JSON."))
    }
    return .number(value)
}

/// The key of an array element in a coding path (`Index 3`), as JSONEncoder and JSONDecoder name it.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}
