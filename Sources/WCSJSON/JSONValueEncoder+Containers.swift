/// The `Encoder` and its three containers over `EncodedNode` (see `JSONValueEncoder`).
struct NodeEncoder: Encoder {
    let node: EncodedNode
    let codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([:]) }
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        SingleNodeContainer(node: node, codingPath: codingPath)
    }
}

/// Scalars into a node, shared by the three containers.
protocol NodeScalarWriter {
    var codingPath: [CodingKey] { get }
}

extension NodeScalarWriter {
    func put(_ value: Bool, in node: EncodedNode) { node.content = .scalar(.bool(value)) }
    func put(_ value: String, in node: EncodedNode) { node.content = .scalar(.string(value)) }
    func put(_ value: Double, in node: EncodedNode, at path: [CodingKey]) throws {
        node.content = .scalar(try encodedNumber(value, value, path))
    }
    func put<T: Encodable>(_ value: T, in node: EncodedNode, at path: [CodingKey]) throws {
        switch value {
        case let value as Bool: put(value, in: node)
        case let value as String: put(value, in: node)
        case let value as Double: try put(value, in: node, at: path)
        case let value as Float: node.content = .scalar(try encodedNumber(Double(value), value, path))
        default:
            // Concrete casts only: a cast to a protocol existential would scan the conformance tables.
            if let number = integer(value) {
                node.content = .scalar(.number(number))
            } else {
                try value.encode(to: NodeEncoder(node: node, codingPath: path))
            }
        }
    }
}

/// An integer of any standard width as a `Double` (nil for other values).
func integer(_ value: Any) -> Double? {
    switch value {
    case let v as Int: Double(v)
    case let v as Int64: Double(v)
    case let v as Int32: Double(v)
    case let v as UInt: Double(v)
    case let v as UInt64: Double(v)
    case let v as UInt32: Double(v)
    case let v as Int16: Double(v)
    case let v as Int8: Double(v)
    case let v as UInt16: Double(v)
    case let v as UInt8: Double(v)
    default: nil
    }
}

struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol, NodeScalarWriter {
    let node: EncodedNode
    let codingPath: [CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .scalar(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(value, in: node.member(key.stringValue)) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(value, in: node.member(key.stringValue)) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        try put(value, in: node.member(key.stringValue), at: codingPath + [key])
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try put(value, in: node.member(key.stringValue), at: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> Encoder { NodeEncoder(node: node.member("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> Encoder {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

struct UnkeyedNodeContainer: UnkeyedEncodingContainer, NodeScalarWriter {
    let node: EncodedNode
    let codingPath: [CodingKey]
    var count: Int { node.count }

    mutating func encodeNil() throws { node.element().content = .scalar(.null) }
    mutating func encode(_ value: Bool) throws { put(value, in: node.element()) }
    mutating func encode(_ value: String) throws { put(value, in: node.element()) }
    mutating func encode(_ value: Double) throws {
        let path = codingPath + [IndexKey(count)]
        try put(value, in: node.element(), at: path)
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = codingPath + [IndexKey(count)]
        try put(value, in: node.element(), at: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [IndexKey(count)]
        return NodeEncoder(node: node.element(), codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        let path = codingPath + [IndexKey(count)]
        return NodeEncoder(node: node.element(), codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> Encoder {
        let path = codingPath + [IndexKey(count)]
        return NodeEncoder(node: node.element(), codingPath: path)
    }
}

struct SingleNodeContainer: SingleValueEncodingContainer, NodeScalarWriter {
    let node: EncodedNode
    let codingPath: [CodingKey]

    mutating func encodeNil() throws { node.content = .scalar(.null) }
    mutating func encode(_ value: Bool) throws { put(value, in: node) }
    mutating func encode(_ value: String) throws { put(value, in: node) }
    mutating func encode(_ value: Double) throws { try put(value, in: node, at: codingPath) }
    mutating func encode<T: Encodable>(_ value: T) throws { try put(value, in: node, at: codingPath) }
}
