// Generated text -> tool calls, for each `ToolCallFormat`. Whitespace and newlines around the
// markers and inside the JSON are accepted; once a call marker has been seen, anything that is
// not a well-formed call is an error rather than silently becoming text.
//
// The call's JSON is read for where its parts lie (`JSONOutline`), not into values: a call's
// arguments leave here as the bytes the model wrote, and the session reads them into
// `GeneratedContent` once, as it reads any executor's arguments.
import JSON
import LanguageModelAPI

/// One call read from generated text.
struct ParsedToolCall: Sendable, Equatable {
    /// The tool's name.
    var name: String
    /// The arguments object as JSON text: the model's own bytes (checked to be one JSON
    /// object), or the text of the string a model wrote the object into; `{}` when it wrote none.
    var argumentsJSON: String
}

/// Generated text split into plain text and tool calls.
struct ParsedToolOutput: Sendable, Equatable {
    /// The text before the first call, without trailing whitespace (all of it when there are
    /// no calls).
    var text: String
    /// The calls, in order.
    var calls: [ParsedToolCall]
    /// Non-whitespace text after the last call (models normally stop after calling).
    var trailingText: String
}

extension ToolCallFormat {
    /// Splits `output` into text and calls in this format. The Mistral formats each read both
    /// Mistral styles, since the two share the `[TOOL_CALLS]` marker.
    func parse(_ output: String) throws(ToolCallParseError) -> ParsedToolOutput {
        var scanner = ToolTextScanner(output)
        switch self {
        case .hermes: return try scanner.parseHermes()
        case .llama3: return try scanner.parseLlama3()
        case .mistral, .mistralNamed: return try scanner.parseMistral()
        }
    }
}

/// A cursor over generated text, as UTF-8 bytes.
private struct ToolTextScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    // MARK: Formats

    mutating func parseHermes() throws(ToolCallParseError) -> ParsedToolOutput {
        guard let start = find("<tool_call>", from: 0) else { return plain() }
        index = start
        var calls: [ParsedToolCall] = []
        while consume("<tool_call>") {
            calls.append(try call(from: try jsonObject(), argumentKeys: ["arguments", "parameters"]))
            skipWhitespace()
            // A model that stops right after the JSON (end of turn) leaves the block unclosed.
            if !consume("</tool_call>"), index < bytes.count { throw .malformedEnvelope("expected </tool_call>") }
            skipWhitespace()
        }
        return finish(textEnd: start, calls: calls)
    }

    mutating func parseLlama3() throws(ToolCallParseError) -> ParsedToolOutput {
        let start: Int
        if let tag = find("<|python_tag|>", from: 0) {
            start = tag
            index = tag + "<|python_tag|>".utf8.count
        } else {
            // Without the tag, a call is an object whose first key is "name" (what the template
            // teaches) and that has arguments; other JSON in a reply, such as `{"name": "Ada",
            // "age": 36}`, stays text. A malformed candidate is still an error (below).
            guard let object = firstObject(startingWithKey: "name") else { return plain() }
            index = object
            if let outline = try? jsonValue(), outline["parameters"] == nil, outline["arguments"] == nil { return plain() }
            start = object
            index = object
        }
        var calls: [ParsedToolCall] = []
        repeat {
            calls.append(try call(from: try jsonObject(), argumentKeys: ["parameters", "arguments"]))
            skipWhitespace()
            // Llama 3.2 sometimes separates several calls with semicolons.
            if consume(";") { skipWhitespace() }
        } while peek() == UInt8(ascii: "{")
        return finish(textEnd: start, calls: calls)
    }

    mutating func parseMistral() throws(ToolCallParseError) -> ParsedToolOutput {
        guard let start = find("[TOOL_CALLS]", from: 0) else { return plain() }
        index = start
        var calls: [ParsedToolCall] = []
        while consume("[TOOL_CALLS]") {
            skipWhitespace()
            // `[ARGS]` right after the marker is a named call with the name missing, not an array.
            if peek() == UInt8(ascii: "["), !bytes[index...].starts(with: "[ARGS]".utf8) {
                guard case let .array(items) = try jsonValue().kind else { throw .malformedJSON("expected an array of calls") }
                for item in items { calls.append(try call(from: item, argumentKeys: ["arguments", "parameters"])) }
            } else {
                guard let argsMarker = find("[ARGS]", from: index) else { throw .malformedEnvelope("expected [ARGS]") }
                let name = String(decoding: bytes[index..<argsMarker], as: UTF8.self).trimmingWhitespace()
                guard !name.isEmpty, !name.contains(where: { $0 == "{" || $0 == "[" || $0.isNewline }) else {
                    throw .missingName
                }
                index = argsMarker + "[ARGS]".utf8.count
                calls.append(ParsedToolCall(name: name, argumentsJSON: try argumentsJSON(try jsonObject(), tool: name)))
            }
            skipWhitespace()
        }
        return finish(textEnd: start, calls: calls)
    }

    // MARK: Calls

    /// The call in `outline`: an object with a string `name` (possibly nested in OpenAI's
    /// `{"type": "function", "function": {…}}`) and arguments under the first of `argumentKeys`
    /// present; missing arguments are an empty object (tools without parameters).
    func call(from outline: JSONOutline, argumentKeys: [String]) throws(ToolCallParseError) -> ParsedToolCall {
        if let function = outline["function"], case .object = function.kind { return try call(from: function, argumentKeys: argumentKeys) }
        guard let name = outline["name"]?.string, !name.isEmpty else { throw .missingName }
        guard let arguments = argumentKeys.lazy.compactMap({ outline[$0] }).first else {
            return ParsedToolCall(name: name, argumentsJSON: "{}")
        }
        return ParsedToolCall(name: name, argumentsJSON: try argumentsJSON(arguments, tool: name))
    }

    /// Arguments as JSON object text: the object's own bytes; some models write the object as a
    /// JSON string, whose text is then the object.
    func argumentsJSON(_ arguments: JSONOutline, tool: String) throws(ToolCallParseError) -> String {
        switch arguments.kind {
        case .object: return String(decoding: bytes[arguments.range], as: UTF8.self)
        case let .string(text):
            guard let inner = try? JSONOutline(parsing: text), case .object = inner.kind else { throw .invalidArguments(tool: tool) }
            return text
        default: throw .invalidArguments(tool: tool)
        }
    }

    // MARK: JSON

    /// The object at the cursor (after whitespace).
    mutating func jsonObject() throws(ToolCallParseError) -> JSONOutline {
        skipWhitespace()
        guard peek() == UInt8(ascii: "{") else { throw .malformedJSON("expected { at byte \(index)") }
        let outline = try jsonValue()
        guard case .object = outline.kind else { throw .malformedJSON("expected an object") }
        return outline
    }

    /// The JSON value at the cursor, which moves past it (one read: text after the value is
    /// left for the caller).
    mutating func jsonValue() throws(ToolCallParseError) -> JSONOutline {
        do {
            let (outline, end) = try JSONOutline.read(valueIn: bytes, from: index)
            index = end
            return outline
        } catch {
            throw .malformedJSON("JSON \(error)")
        }
    }

    /// The offset of the first `{` followed (after whitespace) by the string `"key"`.
    func firstObject(startingWithKey key: String) -> Int? {
        let quoted = Array("\"\(key)\"".utf8)
        var position = 0
        while let brace = bytes[position...].firstIndex(of: UInt8(ascii: "{")) {
            var next = brace + 1
            while next < bytes.count, Self.isWhitespace(bytes[next]) { next += 1 }
            if bytes[next...].starts(with: quoted) { return brace }
            position = brace + 1
        }
        return nil
    }

    // MARK: Text

    func plain() -> ParsedToolOutput {
        ParsedToolOutput(text: String(decoding: bytes, as: UTF8.self), calls: [], trailingText: "")
    }

    func finish(textEnd: Int, calls: [ParsedToolCall]) -> ParsedToolOutput {
        let text = String(decoding: bytes[..<textEnd], as: UTF8.self)
        let trailing = String(decoding: bytes[index...], as: UTF8.self)
        return ParsedToolOutput(text: String(text.reversed().drop(while: \.isWhitespace).reversed()),
                                calls: calls, trailingText: trailing.trimmingWhitespace())
    }

    func find(_ marker: String, from start: Int) -> Int? {
        let needle = Array(marker.utf8)
        guard needle.count <= bytes.count else { return nil }
        var position = start
        while position + needle.count <= bytes.count {
            if bytes[position] == needle[0], bytes[position..<position + needle.count].elementsEqual(needle) { return position }
            position += 1
        }
        return nil
    }

    mutating func consume(_ marker: String) -> Bool {
        guard bytes[index...].starts(with: marker.utf8) else { return false }
        index += marker.utf8.count
        return true
    }

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
}

private extension String {
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
