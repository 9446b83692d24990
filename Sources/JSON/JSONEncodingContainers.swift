// The three containers `NodeEncoder` hands out. Each adds to its encoder's node; nested
// containers and super encoders make a child node in place first, so what is encoded into them
// later lands where it belongs. Every primitive funnels into `EncodingNode.store`.

struct KeyedNodeEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: NodeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    /// A new node at `key`, and the encoder that writes into it.
    private func child(_ key: any CodingKey) -> NodeEncoder {
        let node = EncodingNode()
        encoder.node.set(node, forKey: key.stringValue)
        return encoder.child(key, node: node)
    }

    private func encode<T: Encodable>(_ value: T?, _ key: Key) throws {
        let child = child(key)
        if let value { try child.node.store(value, at: child.codingPath, userInfo: child.storedUserInfo) } else { child.node.set(.null) }
    }

    mutating func encodeNil(forKey key: Key) throws { try encode(nil as Bool?, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try encode(value as Bool?, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try encode(value as String?, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try encode(value as Double?, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encode(value as Float?, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try encode(value as Int?, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try encode(value as Int8?, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try encode(value as Int16?, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try encode(value as Int32?, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try encode(value as Int64?, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encode(value as UInt?, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try encode(value as UInt8?, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try encode(value as UInt16?, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try encode(value as UInt32?, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encode(value as UInt64?, key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encode(value as T?, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        child(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        child(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { child(JSONCodingKey.super) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { child(key) }
}

struct UnkeyedNodeEncoding: UnkeyedEncodingContainer {
    let encoder: NodeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.node.count }

    /// A new last element, and the encoder that writes into it.
    private func child() -> NodeEncoder {
        let node = EncodingNode()
        let key = JSONCodingKey(index: encoder.node.count)
        encoder.node.append(node)
        return encoder.child(key, node: node)
    }

    private func add<T: Encodable>(_ value: T) throws {
        let child = child()
        try child.node.store(value, at: child.codingPath, userInfo: child.storedUserInfo)
    }

    mutating func encodeNil() throws { child().node.set(.null) }
    mutating func encode(_ value: Bool) throws { try add(value) }
    mutating func encode(_ value: String) throws { try add(value) }
    mutating func encode(_ value: Double) throws { try add(value) }
    mutating func encode(_ value: Float) throws { try add(value) }
    mutating func encode(_ value: Int) throws { try add(value) }
    mutating func encode(_ value: Int8) throws { try add(value) }
    mutating func encode(_ value: Int16) throws { try add(value) }
    mutating func encode(_ value: Int32) throws { try add(value) }
    mutating func encode(_ value: Int64) throws { try add(value) }
    mutating func encode(_ value: UInt) throws { try add(value) }
    mutating func encode(_ value: UInt8) throws { try add(value) }
    mutating func encode(_ value: UInt16) throws { try add(value) }
    mutating func encode(_ value: UInt32) throws { try add(value) }
    mutating func encode(_ value: UInt64) throws { try add(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try add(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        child().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { child().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { child() }
}

struct SingleNodeEncoding: SingleValueEncodingContainer {
    let encoder: NodeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func store<T: Encodable>(_ value: T) throws {
        try encoder.node.store(value, at: codingPath, userInfo: encoder.storedUserInfo)
    }

    mutating func encodeNil() throws { encoder.node.set(.null) }
    mutating func encode(_ value: Bool) throws { try store(value) }
    mutating func encode(_ value: String) throws { try store(value) }
    mutating func encode(_ value: Double) throws { try store(value) }
    mutating func encode(_ value: Float) throws { try store(value) }
    mutating func encode(_ value: Int) throws { try store(value) }
    mutating func encode(_ value: Int8) throws { try store(value) }
    mutating func encode(_ value: Int16) throws { try store(value) }
    mutating func encode(_ value: Int32) throws { try store(value) }
    mutating func encode(_ value: Int64) throws { try store(value) }
    mutating func encode(_ value: UInt) throws { try store(value) }
    mutating func encode(_ value: UInt8) throws { try store(value) }
    mutating func encode(_ value: UInt16) throws { try store(value) }
    mutating func encode(_ value: UInt32) throws { try store(value) }
    mutating func encode(_ value: UInt64) throws { try store(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try store(value) }
}
