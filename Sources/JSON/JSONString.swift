// How JSON writes text inside a string literal, once for the whole package: the chat templates'
// `tojson`, generated content, tool schemas in prompts and the grammar's byte automaton all
// write strings this way, which is also how Python's json.dumps(ensure_ascii=False) and
// llama.cpp write them.

/// JSON string literals.
public enum JSONString {
    /// The escape JSON writes for `scalar` inside a string literal, or nil when the scalar is
    /// written as itself: the quote and backslash are escaped, C0 control characters take their
    /// short form (`\n`, `\t`, ...) or `\u00xx` with lowercase hex; everything else, non-ASCII
    /// included, is written as is.
    public static func escape(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x22: return "\\\""
        case 0x5C: return "\\\\"
        case 0x08: return "\\b"
        case 0x0C: return "\\f"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        case 0..<0x20:
            let digits = Array("0123456789abcdef")
            return "\\u00" + String(digits[Int(scalar.value >> 4)]) + String(digits[Int(scalar.value & 0xF)])
        default: return nil
        }
    }

    /// The UTF-8 bytes JSON writes for `scalar` inside a string literal.
    public static func bytes(of scalar: Unicode.Scalar) -> [UInt8] {
        if let escaped = escape(scalar) { return Array(escaped.utf8) }
        return Array(String(Character(scalar)).utf8)
    }

    /// Appends `text` as a JSON string literal, quotes included.
    public static func write(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            if let escaped = escape(scalar) { output += escaped } else { output.unicodeScalars.append(scalar) }
        }
        output += "\""
    }

    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var output = ""
        write(text, into: &output)
        return output
    }
}
