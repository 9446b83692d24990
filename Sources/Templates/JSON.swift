// JSON in and out. Output must equal Python's json.dumps(value, ensure_ascii=False,
// indent=...) byte for byte (that is how Hugging Face's `tojson` prints tools and arguments), so
// it is written here rather than borrowed from Foundation, whose spacing, escaping, number
// formatting and key order all differ. Input parsing keeps object key order for the same reason;
// the reader and the string escaping are the package's one JSON module.
import JSON

/// Python's json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=sortKeys).
/// Without indent the separators are ", " and ": "; with indent, "," and ": " plus newlines.
/// An indent whose padding alone would pass `maxBytes` is a limit error, not an allocation.
func jsonDumps(_ value: Value, indent: Int?, sortKeys: Bool = false, maxBytes: Int = RenderLimits().maxOutputBytes) throws(TemplateError) -> String {
    var out = ""
    // As Python's " " * n, a negative indent is newlines without padding.
    let indent = indent.map { max(0, $0) }
    if let indent, indent > maxBytes { throw .limitExceeded("tojson indent wider than \(maxBytes) bytes") }
    try jsonWrite(value, into: &out, indent: indent, level: 0, sortKeys: sortKeys, maxBytes: maxBytes)
    return out
}

private func jsonWrite(_ value: Value, into out: inout String, indent: Int?, level: Int, sortKeys: Bool, maxBytes: Int) throws(TemplateError) {
    switch value {
    case .none: out += "null"
    case let .bool(b): out += b ? "true" : "false"
    case let .int(i): out += String(i)
    case let .double(d):
        // json.dumps writes NaN/Infinity (allow_nan=True) and repr() for finite floats.
        if d.isNaN { out += "NaN" } else if d.isInfinite { out += d < 0 ? "-Infinity" : "Infinity" } else { out += pythonFloatRepr(d) }
    case let .string(s): JSONString.write(s, into: &out)
    case let .list(items):
        if items.isEmpty { out += "[]"; return }
        out += "["
        for (i, item) in items.enumerated() {
            if i > 0 { out += indent == nil ? ", " : "," }
            try jsonNewline(&out, indent: indent, level: level + 1, maxBytes: maxBytes)
            try jsonWrite(item, into: &out, indent: indent, level: level + 1, sortKeys: sortKeys, maxBytes: maxBytes)
        }
        try jsonNewline(&out, indent: indent, level: level, maxBytes: maxBytes)
        out += "]"
    case let .dict(dict):
        if dict.count == 0 { out += "{}"; return }
        var pairs = dict.pairs
        if sortKeys { pairs.sort { $0.0.unicodeScalars.lexicographicallyPrecedes($1.0.unicodeScalars) { $0.value < $1.value } } }
        out += "{"
        for (i, (key, item)) in pairs.enumerated() {
            if i > 0 { out += indent == nil ? ", " : "," }
            try jsonNewline(&out, indent: indent, level: level + 1, maxBytes: maxBytes)
            JSONString.write(key, into: &out)
            out += ": "
            try jsonWrite(item, into: &out, indent: indent, level: level + 1, sortKeys: sortKeys, maxBytes: maxBytes)
        }
        try jsonNewline(&out, indent: indent, level: level, maxBytes: maxBytes)
        out += "}"
    case .undefined:
        throw .runtime("Object of type Undefined is not JSON serializable", nil)
    default:
        throw .runtime("Object of type \(value.typeName) is not JSON serializable", nil)
    }
}

private func jsonNewline(_ out: inout String, indent: Int?, level: Int, maxBytes: Int) throws(TemplateError) {
    guard let indent else { return }
    let (padding, overflow) = indent.multipliedReportingOverflow(by: level)
    guard !overflow, out.utf8.count + padding < maxBytes else { throw .limitExceeded("tojson output longer than \(maxBytes) bytes") }
    out += "\n" + String(repeating: " ", count: padding)
}

// MARK: - Parsing

/// Parses JSON text into a `TemplateValue`, keeping object keys in document order (a repeated
/// key keeps its first position and takes the later value, as Python's dict does). Integers
/// without a fraction or exponent stay integers (so `21` prints as `21`, not `21.0`).
public func parseJSON(_ text: String) throws(TemplateError) -> TemplateValue {
    let value: TemplateValue?
    do {
        value = try JSONReader.read(text, with: TemplateValueBuilder())
    } catch {
        throw .invalidInput("JSON \(error)")
    }
    guard let value else { throw .invalidInput("JSON is empty") }
    return value
}

/// The JSON value starting at byte `start` of `bytes` (objects keep key order, integers stay
/// integers, as `parseJSON`), and the offset just past it; text after the value is not read.
public func parseJSONValue(in bytes: [UInt8], from start: Int) throws(TemplateError) -> (value: TemplateValue, end: Int) {
    do {
        return try JSONReader.read(valueIn: bytes, from: start, with: TemplateValueBuilder())
    } catch {
        throw .invalidInput("JSON \(error)")
    }
}

/// Builds `TemplateValue`s for the JSON reader (whole documents only, so `complete` is
/// always true).
private struct TemplateValueBuilder: JSONValueBuilder {
    func null(complete: Bool) -> TemplateValue { .none }
    func bool(_ value: Bool, complete: Bool) -> TemplateValue { .bool(value) }
    func number(_ text: String, _ value: Double, complete: Bool) -> TemplateValue {
        if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let integer = Int(text) { return .int(integer) }
        return .double(value)
    }
    func string(_ value: String, complete: Bool) -> TemplateValue { .string(value) }
    func array(_ elements: [TemplateValue], complete: Bool) -> TemplateValue { .array(elements) }
    func object(_ members: [(key: String, value: TemplateValue)], complete: Bool) -> TemplateValue {
        var object = TemplateObject()
        for (key, value) in members { object[key] = value }
        return .object(object)
    }
}

extension TemplateValue {
    /// JSON text for this value, formatted as Python's json.dumps(ensure_ascii=False, indent=indent).
    public func jsonString(indent: Int? = nil) -> String {
        (try? jsonDumps(runtimeValue(self), indent: indent)) ?? "null"
    }
}

private func runtimeValue(_ v: TemplateValue) -> Value { Value(v) }
