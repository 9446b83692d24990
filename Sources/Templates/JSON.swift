// JSON in and out. Output must equal Python's json.dumps(value, ensure_ascii=False,
// indent=...) byte for byte (that is how Hugging Face's `tojson` prints tools and arguments), so
// it is written here rather than borrowed from Foundation, whose spacing, escaping, number
// formatting and key order all differ. Input parsing keeps object key order for the same reason.

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
    case let .string(s): jsonWriteString(s, into: &out)
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
            jsonWriteString(key, into: &out)
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

/// A JSON string literal as json.dumps writes it with ensure_ascii=False: only the quote,
/// backslash and C0 control characters are escaped; everything else is written as is.
/// (Also `GeneratedContent`'s JSON writer, in module Quanta.)
public func jsonWriteString(_ s: String, into out: inout String) {
    out += "\""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "\u{08}": out += "\\b"
        case "\u{0C}": out += "\\f"
        default:
            if scalar.value < 0x20 { out += "\\u" + hex(scalar.value, width: 4) } else { out.unicodeScalars.append(scalar) }
        }
    }
    out += "\""
}

// MARK: - Parsing

/// Parses JSON text into a `TemplateValue`, keeping object keys in document order.
/// Integers without a fraction or exponent stay integers (so `21` prints as `21`, not `21.0`).
public func parseJSON(_ text: String) throws(TemplateError) -> TemplateValue {
    var parser = JSONParser(bytes: Array(text.utf8))
    parser.skipWhitespace()
    let value = try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    guard parser.index == parser.bytes.count else { throw parser.error("trailing characters") }
    return value
}

private struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    /// Deeper nesting than this is rejected rather than risking the stack.
    static let maxDepth = 512

    init(bytes: [UInt8]) { self.bytes = bytes }

    func error(_ message: String) -> TemplateError { .invalidInput("JSON \(message) at byte \(index)") }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func expect(_ literal: String) throws(TemplateError) {
        let utf8 = Array(literal.utf8)
        guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
            throw error("expected \(literal)")
        }
        index += utf8.count
    }

    mutating func parseValue(depth: Int) throws(TemplateError) -> TemplateValue {
        guard depth < Self.maxDepth else { throw error("nested too deeply") }
        guard index < bytes.count else { throw error("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var object = TemplateObject()
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
                let key = try parseString()
                skipWhitespace()
                try expect(":")
                skipWhitespace()
                object[key] = try parseValue(depth: depth + 1)
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
                throw error("expected , or }")
            }
        case UInt8(ascii: "["):
            index += 1
            var items: [TemplateValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            while true {
                skipWhitespace()
                items.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                throw error("expected , or ]")
            }
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .none
        default: return try parseNumber()
        }
    }

    mutating func parseNumber() throws(TemplateError) -> TemplateValue {
        let start = index
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        while index < bytes.count {
            let b = bytes[index]
            if b >= 0x30 && b <= 0x39 { index += 1; continue }
            if b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E") || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") {
                isInteger = false
                index += 1
                continue
            }
            break
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let i = Int(text) { return .int(i) }
        guard !text.isEmpty, text != "-", let d = Double(text) else { throw error("invalid value") }
        return .double(d)
    }

    mutating func parseHex4() throws(TemplateError) -> UInt32 {
        guard index + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw error("bad \\u escape")
        }
        index += 4
        return v
    }

    mutating func parseString() throws(TemplateError) -> String {
        index += 1  // opening quote
        var run = index  // start of the current run of unescaped bytes
        var out = ""
        func flush(_ end: Int) { out += String(decoding: bytes[run..<end], as: UTF8.self) }
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                flush(index)
                index += 1
                return out
            }
            if b != UInt8(ascii: "\\") { index += 1; continue }
            flush(index)
            index += 1
            guard index < bytes.count else { throw error("unterminated string") }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): out += "\""
            case UInt8(ascii: "\\"): out += "\\"
            case UInt8(ascii: "/"): out += "/"
            case UInt8(ascii: "b"): out += "\u{08}"
            case UInt8(ascii: "f"): out += "\u{0C}"
            case UInt8(ascii: "n"): out += "\n"
            case UInt8(ascii: "r"): out += "\r"
            case UInt8(ascii: "t"): out += "\t"
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if code >= 0xD800 && code < 0xDC00, index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                    let save = index
                    index += 2
                    let low = try parseHex4()
                    if low >= 0xDC00 && low < 0xE000 {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        index = save
                    }
                }
                // A lone surrogate cannot live in a Swift String; use the replacement character.
                out.unicodeScalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default: throw error("bad escape")
            }
            run = index
        }
    }
}

extension TemplateValue {
    /// JSON text for this value, formatted as Python's json.dumps(ensure_ascii=False, indent=indent).
    public func jsonString(indent: Int? = nil) -> String {
        (try? jsonDumps(runtimeValue(self), indent: indent)) ?? "null"
    }
}

private func runtimeValue(_ v: TemplateValue) -> Value { Value(v) }
