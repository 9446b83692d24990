import JSON

/// Writes `GeneratedContent` as compact JSON through the JSON target's one writer: no
/// insignificant whitespace, properties in their recorded order, only the escapes JSON requires
/// (quote, backslash, control characters), numbers as `JSONValue.number` writes them.
enum JSONWriter {
    static func write(_ content: GeneratedContent) -> String {
        document(content).jsonText
    }

    /// The content as a JSON document tree.
    static func document(_ content: GeneratedContent) -> JSONValue {
        switch content.kind {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let value): return .number(value)
        case .string(let value): return .string(value)
        case .array(let elements): return .array(elements.map(document))
        case .structure(let properties, let orderedKeys):
            return .object(keysInOrder(properties, orderedKeys).map { (key: $0, value: document(properties[$0]!)) })
        }
    }

    /// `orderedKeys` that have a value, then any other keys sorted (content built with an
    /// inconsistent `Kind` still writes every property exactly once).
    static func keysInOrder(_ properties: [String: GeneratedContent], _ orderedKeys: [String]) -> [String] {
        var seen = Set<String>()
        var keys = orderedKeys.filter { properties[$0] != nil && seen.insert($0).inserted }
        keys += properties.keys.filter { !seen.contains($0) }.sorted()
        return keys
    }

    /// A number's JSON text: integral values without a fraction (`3`, not `3.0`) so integers
    /// round-trip as written, others in Swift's shortest round-tripping form, `null` for the
    /// infinities and NaN, which JSON lacks.
    static func number(_ value: Double) -> String {
        JSONValue.number(value).jsonText
    }
}
