// Where a JSON object or array embedded in generated text ends, so that exactly that slice can
// go to the Templates JSON parser (which accepts only whole documents).
import LanguageModelAPI

/// Locates JSON values in UTF-8 text.
enum JSONExtent {
    /// The index just past the object or array that starts at `start` (which must hold `{` or
    /// `[`), found by bracket counting outside strings; nil when the text ends first or the
    /// brackets do not pair up. The slice is not validated: the JSON parser does that.
    static func end(of bytes: [UInt8], from start: Int) -> Int? {
        var stack: [UInt8] = []
        var index = start
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inString {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"): stack.append(UInt8(ascii: "}"))
            case UInt8(ascii: "["): stack.append(UInt8(ascii: "]"))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard stack.popLast() == byte else { return nil }
                if stack.isEmpty { return index }
            default:
                if stack.isEmpty { return nil }
            }
        }
        return nil
    }
}
