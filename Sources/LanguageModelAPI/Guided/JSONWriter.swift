import JSON

/// Writes `GeneratedContent` as compact JSON: no insignificant whitespace, properties in their
/// recorded order, only the escapes JSON requires (quote, backslash, control characters).
enum JSONWriter {
    static func write(_ content: GeneratedContent) -> String {
        var output = ""
        write(content, into: &output)
        return output
    }

    private static func write(_ content: GeneratedContent, into output: inout String) {
        switch content.kind {
        case .null:
            output += "null"
        case .bool(let value):
            output += value ? "true" : "false"
        case .number(let value):
            output += number(value)
        case .string(let value):
            JSONString.write(value, into: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                write(element, into: &output)
            }
            output += "]"
        case .structure(let properties, let orderedKeys):
            output += "{"
            for (index, key) in keysInOrder(properties, orderedKeys).enumerated() {
                if index > 0 { output += "," }
                JSONString.write(key, into: &output)
                output += ":"
                write(properties[key]!, into: &output)
            }
            output += "}"
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

    /// Integral values print without a fraction (`3`, not `3.0`) so integers round-trip as
    /// written; others use Swift's shortest round-tripping form. JSON has no infinities or NaN,
    /// so those print as `null`.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return "\(value)"
    }
}
