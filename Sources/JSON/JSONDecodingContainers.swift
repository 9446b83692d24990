// The three containers `NodeDecoder` hands out, over an object's members, an array's elements
// or one value. Every primitive funnels into `NodeDecoder.decode`, which knows the path.

struct KeyedNodeDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: NodeDecoder
    /// Each key's value (a repeated key's last, as `JSONValue` looks keys up).
    private let values: [String: JSONValue]
    /// The keys in document order, each once.
    private let order: [String]
    var codingPath: [any CodingKey] { decoder.codingPath }

    init(decoder: NodeDecoder, members: [(key: String, value: JSONValue)]) {
        self.decoder = decoder
        var values: [String: JSONValue] = [:], order: [String] = []
        for (key, value) in members where values.updateValue(value, forKey: key) == nil { order.append(key) }
        self.values = values
        self.order = order
    }

    var allKeys: [Key] { order.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { values[key.stringValue] != nil }

    /// The decoder for member `key`; a missing key is `keyNotFound`.
    private func child(_ key: any CodingKey) throws -> NodeDecoder {
        guard let value = values[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no member \"\(key.stringValue)\""))
        }
        return decoder.child(value, key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).value == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decode(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    /// The member `super` (null when absent, as `JSONDecoder` gives it).
    func superDecoder() throws -> any Decoder { decoder.child(values["super"] ?? .null, JSONCodingKey.super) }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(values[key.stringValue] ?? .null, key) }
}

struct UnkeyedNodeDecoding: UnkeyedDecodingContainer {
    let decoder: NodeDecoder
    let elements: [JSONValue]
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }
    private(set) var currentIndex = 0

    init(decoder: NodeDecoder, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    /// The decoder for the current element (not consumed); past the end `valueNotFound`.
    private func current(_ type: Any.Type) throws -> NodeDecoder {
        let key = JSONCodingKey(index: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(codingPath: codingPath + [key], debugDescription: "the array has no more elements"))
        }
        return decoder.child(elements[currentIndex], key)
    }

    private mutating func next<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try current(type).decode(type)
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard try current(Any?.self).value == .null else { return false }
        currentIndex += 1
        return true
    }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try current(type).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try current([Any].self).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = try current(Any.self)
        currentIndex += 1
        return decoder
    }
}

struct SingleNodeDecoding: SingleValueDecodingContainer {
    let decoder: NodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decode(type) }
    func decode(_ type: String.Type) throws -> String { try decoder.decode(type) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decode(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decode(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decode(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decode(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decode(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decode(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decode(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decode(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decode(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decode(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decode(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decode(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
}
