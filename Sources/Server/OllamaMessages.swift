// Ollama's chat messages renamed into OpenAI's, which `ChatMessages` reads: an assistant's
// `tool_calls` carry their arguments as a JSON object and no id, and a `tool` message names the
// tool (`tool_name`) instead of the call it answers.
import JSON

enum OllamaMessages {
    /// `messages` as OpenAI chat messages. Each call gets the id `call_<message>_<call>`; a tool
    /// message answers the earliest unanswered call of its `tool_name` (or, without one, the
    /// earliest unanswered call). `thinking` on an earlier assistant message is dropped (the
    /// transcript keeps answers, not thoughts); images are refused.
    static func openAI(_ messages: [JSONValue]) throws(APIError) -> [JSONValue] {
        var unanswered: [(id: String, name: String)] = []
        var out: [JSONValue] = []
        for (i, message) in messages.enumerated() {
            let m = try RequestFields(message, path: "messages[\(i)]")
            try m.rejectUnknown(["role", "content", "images", "tool_calls", "tool_name", "thinking"])
            if let images = try m.array("images"), !images.isEmpty {
                throw APIError.unsupported(m.name("images"), "images are not supported by this server")
            }
            _ = try m.string("thinking")
            var renamed = m.members.filter { !["images", "thinking", "tool_calls", "tool_name"].contains($0.key) }
            if let calls = try m.array("tool_calls"), !calls.isEmpty {
                renamed.append(("tool_calls", .array(try calls.enumerated().map { (j, call) throws(APIError) -> JSONValue in
                    let path = m.name("tool_calls[\(j)]")
                    let c = try RequestFields(call, path: path)
                    guard let function = try c.object("function"), let name = try function.string("name") else {
                        throw APIError.invalid(path, "\(path) must be {\"function\": {\"name\": ..., \"arguments\": {...}}}")
                    }
                    let arguments: String
                    switch function["arguments"] {
                    case nil: arguments = "{}"
                    case let value? where value.isObject: arguments = value.jsonText
                    default: throw APIError.invalid(function.name("arguments"), "\(function.name("arguments")) must be a JSON object")
                    }
                    let id = "call_\(i)_\(j)"
                    unanswered.append((id, name))
                    return .object([("id", .string(id)), ("type", .string("function")),
                                    ("function", .object([("name", .string(name)), ("arguments", .string(arguments))]))])
                })))
            }
            if try m.string("role") == "tool" {
                let name = try m.string("tool_name")
                guard let k = unanswered.firstIndex(where: { name == nil || $0.name == name }) else {
                    throw APIError.invalid(m.name("role"), "messages[\(i)] is a tool message that answers no earlier tool call"
                                           + (name.map { " of '\($0)'" } ?? ""))
                }
                renamed.append(("tool_call_id", .string(unanswered.remove(at: k).id)))
            }
            out.append(.object(renamed))
        }
        return out
    }
}

extension JSONValue {
    var isObject: Bool { if case .object = self { true } else { false } }
}
