// OpenAI chat messages as an FM27 transcript: system → instructions, user → prompt, assistant →
// response and tool calls, tool → tool output.
import JSON
import LanguageModelAPI

enum ChatMessages {
    /// The transcript of `messages`. System (and developer) messages must come first; the last
    /// message must be a user or tool message (the answer is what comes next).
    static func transcript(_ messages: [JSONValue]) throws(APIError) -> Transcript {
        var entries: [Transcript.Entry] = []
        var toolNames: [String: String] = [:]   // call id -> function name, for tool messages
        for (i, message) in messages.enumerated() {
            let path = "messages[\(i)]"
            let fields = try RequestFields(message, path: path)
            let role = try fields.string("role")
            switch role {
            case "system", "developer":
                guard entries.allSatisfy({ if case .instructions = $0 { true } else { false } }) else {
                    throw APIError.unsupported("\(path).role", "system messages must come before the others")
                }
                let text = try content(fields, path: path) ?? ""
                if case let .instructions(previous)? = entries.last {
                    let joined = previous.segments.compactMap { if case let .text(t) = $0 { t.content } else { nil } }.joined() + "\n\n" + text
                    entries[entries.count - 1] = .instructions(.init(segments: [.text(.init(content: joined))]))
                } else {
                    entries.append(.instructions(.init(segments: [.text(.init(content: text))])))
                }
            case "user":
                guard let text = try content(fields, path: path) else { throw APIError.invalid("\(path).content", "\(path).content is required") }
                entries.append(.prompt(.init(segments: [.text(.init(content: text))])))
            case "assistant":
                if let text = try content(fields, path: path), !text.isEmpty {
                    entries.append(.response(.init(segments: [.text(.init(content: text))])))
                }
                if let calls = try fields.array("tool_calls"), !calls.isEmpty {
                    var parsed: [Transcript.ToolCall] = []
                    for (j, call) in calls.enumerated() {
                        let c = try toolCall(call, path: "\(path).tool_calls[\(j)]")
                        toolNames[c.id] = c.toolName
                        parsed.append(c)
                    }
                    entries.append(.toolCalls(.init(parsed)))
                }
            case "tool":
                guard let id = try fields.string("tool_call_id") else {
                    throw APIError.invalid("\(path).tool_call_id", "\(path).tool_call_id is required")
                }
                guard let name = toolNames[id] else {
                    throw APIError.invalid("\(path).tool_call_id", "\(path).tool_call_id '\(id)' answers no earlier assistant tool call")
                }
                let text = try content(fields, path: path) ?? ""
                entries.append(.toolOutput(.init(id: id, toolName: name, segments: [.text(.init(content: text))])))
            case let other:
                throw APIError.invalid("\(path).role", "\(path).role must be system, developer, user, assistant or tool, got \(other ?? "nothing")")
            }
        }
        switch entries.last {
        case .prompt?, .toolOutput?: break
        default: throw APIError.invalid("messages", "the last message must be a user or tool message")
        }
        return Transcript(entries: entries)
    }

    /// A message's text: a string, or an array of `{"type": "text", "text"}` parts (joined).
    private static func content(_ fields: RequestFields, path: String) throws(APIError) -> String? {
        switch fields["content"] {
        case nil: return nil
        case let .string(s)?: return s
        case let .array(parts)?:
            var text = ""
            for (k, part) in parts.enumerated() {
                let p = try RequestFields(part, path: "\(path).content[\(k)]")
                guard try p.string("type") == "text", let t = try p.string("text") else {
                    throw APIError.unsupported("\(path).content[\(k)]", "only text content parts are supported")
                }
                text += t
            }
            return text
        default: throw APIError.invalid("\(path).content", "\(path).content must be a string or an array of text parts")
        }
    }

    /// `{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}`.
    private static func toolCall(_ value: JSONValue, path: String) throws(APIError) -> Transcript.ToolCall {
        let fields = try RequestFields(value, path: path)
        guard let id = try fields.string("id"), let function = try fields.object("function"),
              let name = try function.string("name") else {
            throw APIError.invalid(path, "\(path) must have an id and a function with a name")
        }
        let argumentsText = try function.string("arguments") ?? "{}"
        let arguments: GeneratedContent
        do {
            arguments = try GeneratedContent(json: argumentsText.isEmpty ? "{}" : argumentsText)
        } catch {
            throw APIError.invalid("\(path).function.arguments", "\(path).function.arguments must be JSON text")
        }
        return Transcript.ToolCall(id: id, toolName: name, arguments: arguments)
    }
}
