/// The three decoding containers of `JSONValueDecoder` over `JSONValue`.
struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func value(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, context(codingPath,
                                                         "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let path = codingPath + [key]
        return try NodeDecoder(value: .null, codingPath: path).unbox(try value(key), as: type, at: path)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try NodeDecoder(value: try value(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
        try NodeDecoder(value: try value(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> Decoder { NodeDecoder(value: members["super"] ?? .null, codingPath: codingPath) }

    func superDecoder(forKey key: Key) throws -> Decoder {
        NodeDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

struct UnkeyedValueContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [CodingKey]
    private(set) var currentIndex = 0

    init(items: [JSONValue], codingPath: [CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private func next(_ type: Any.Type) throws -> (JSONValue, [CodingKey]) {
        let path = codingPath + [IndexKey(currentIndex)]
        guard !isAtEnd else { throw DecodingError.valueNotFound(type, context(path, "Unkeyed container is at end.")) }
        return (items[currentIndex], path)
    }

    mutating func decodeNil() throws -> Bool {
        let (value, _) = try next(Any?.self)
        guard value == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, path) = try next(type)
        let decoded = try NodeDecoder(value: .null, codingPath: path).unbox(value, as: type, at: path)
        currentIndex += 1
        return decoded
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next(KeyedDecodingContainer<NestedKey>.self)
        let container = try NodeDecoder(value: value, codingPath: path).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer {
        let (value, path) = try next(UnkeyedDecodingContainer.self)
        let container = try NodeDecoder(value: value, codingPath: path).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> Decoder {
        let (value, path) = try next(Decoder.self)
        currentIndex += 1
        return NodeDecoder(value: value, codingPath: path)
    }
}

struct SingleValueContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [CodingKey]

    func decodeNil() -> Bool { value == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try NodeDecoder(value: value, codingPath: codingPath).unbox(value, as: type, at: codingPath)
    }
}
