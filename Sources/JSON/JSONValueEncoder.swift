// `Encodable` values into `JSONValue` trees, so Codable types are written by the package's one
// JSON writer. The output is what Foundation's `JSONEncoder` writes with its default strategies
// (`Data` as Base64, `URL` as its absolute string, `Date` through its own `Encodable`: seconds
// since 2001), so `JSONDecoder` reads it and the other way round.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes `Encodable` values as `JSONValue` trees (members in the order they were encoded).
public struct JSONValueEncoder {
    /// Objects' members sorted by key (as `JSONEncoder.OutputFormatting.sortedKeys`), for output
    /// that does not depend on the order a type encodes its members in.
    public var sortedKeys: Bool
    /// Passed to the values' `encode(to:)` as `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    public init(sortedKeys: Bool = false, userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.sortedKeys = sortedKeys
        self.userInfo = userInfo
    }

    /// `value` as a JSON tree. Throws `EncodingError.invalidValue` for a non-finite number or a
    /// value that encodes nothing, and what the value's own `encode(to:)` throws.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = EncodingNode()
        try root.store(value, at: [], userInfo: userInfo)
        guard root.kind != .empty else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: "\(T.self) encoded no value"))
        }
        return root.tree(sortedKeys: sortedKeys)
    }

    /// `value` as compact JSON text.
    public func text<T: Encodable>(of value: T) throws -> String {
        try encode(value).jsonText
    }
}

/// One value being encoded: a scalar, or an array or object whose parts are still being filled
/// (containers and nested encoders hold the node and add to it).
final class EncodingNode {
    enum Kind { case empty, scalar, array, object }
    private(set) var kind = Kind.empty
    private var scalar = JSONValue.null
    private var elements: [EncodingNode] = []
    private var keys: [String] = []
    private var members: [String: EncodingNode] = [:]

    func set(_ value: JSONValue) {
        kind = .scalar
        scalar = value
    }

    /// This node as an array (kept if it is one already).
    func makeArray() {
        if kind != .array { kind = .array; elements = [] }
    }

    /// This node as an object (kept if it is one already, so two keyed containers share it).
    func makeObject() {
        if kind != .object { kind = .object; keys = []; members = [:] }
    }

    func append(_ node: EncodingNode) { elements.append(node) }

    var count: Int { kind == .array ? elements.count : members.count }

    /// Sets member `key`; a key encoded again keeps its first place and takes the new value.
    func set(_ node: EncodingNode, forKey key: String) {
        if members.updateValue(node, forKey: key) == nil { keys.append(key) }
    }

    /// The tree below this node; a node nothing was encoded into is an empty object, as
    /// Foundation writes it.
    func tree(sortedKeys: Bool) -> JSONValue {
        switch kind {
        case .empty: return .object([])
        case .scalar: return scalar
        case .array: return .array(elements.map { $0.tree(sortedKeys: sortedKeys) })
        case .object:
            let order = sortedKeys ? keys.sorted() : keys
            return .object(order.map { ($0, members[$0]!.tree(sortedKeys: sortedKeys)) })
        }
    }

    /// Encodes `value` into this node: JSON's own scalars, Foundation's specially written types,
    /// and anything else through its `encode(to:)`.
    func store<T: Encodable>(_ value: T, at path: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) throws {
        switch value {
        case let string as String: set(.string(string))
        case let bool as Bool: set(.bool(bool))
        case let double as Double: set(try Self.number(double, path: path))
        case let float as Float:
            _ = try Self.number(Double(float), path: path)
            set(.number(float: float))
        case let integer as any BinaryInteger: set(.number(Double(integer), text: "\(integer)"))
        case let data as Data: set(.string(data.base64EncodedString()))
        case let url as URL: set(.string(url.absoluteString))
        default: try value.encode(to: NodeEncoder(node: self, codingPath: path, userInfo: userInfo))
        }
    }

    /// A finite number; JSON has no spelling for the others.
    private static func number(_ value: Double, path: [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: path, debugDescription: "\(value) is not a JSON number"))
        }
        return .number(value)
    }
}

/// The `Encoder` a value's `encode(to:)` writes into one node through.
struct NodeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    let storedUserInfo: [CodingUserInfoKey: any Sendable]
    var userInfo: [CodingUserInfoKey: Any] { storedUserInfo }

    init(node: EncodingNode, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.node = node
        self.codingPath = codingPath
        storedUserInfo = userInfo
    }

    /// An encoder for a new node at `key` below this one.
    func child(_ key: any CodingKey, node: EncodingNode) -> NodeEncoder {
        NodeEncoder(node: node, codingPath: codingPath + [key], userInfo: storedUserInfo)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(KeyedNodeEncoding<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return UnkeyedNodeEncoding(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeEncoding(encoder: self)
    }
}
