// Tool conversation turns -> the chat messages and `tools` variable one template render takes,
// either in the OpenAI shape that Hugging Face transformers and llama.cpp hand to templates or,
// for templates without tool support, as the system-prompt fallback.
import LanguageModelAPI
import Templates

/// What one render of a chat template takes, tools included.
struct ToolPrompt: Sendable, Equatable {
    /// The conversation.
    var messages: [ChatMessage]
    /// The `tools` variable; nil when the render should see no tools (no tools given, or a
    /// template without tool support, whose tools live in the system message instead).
    var tools: [TemplateValue]?
}

extension ToolTemplateSupport {
    /// Lowers `turns` and `tools` for this template.
    ///
    /// Native templates get `tools` as `[{"type": "function", "function": {"name",
    /// "description", "parameters"}}]`, calls as assistant messages with `tool_calls: [{"id",
    /// "type": "function", "function": {"name", "arguments"}}]`, and results as `role: "tool"`
    /// messages with `tool_call_id` and `name`. Other templates get the fallback: the tool list
    /// and call format appended to the system message (or as a new first system message), calls
    /// as assistant text in the Hermes format, and each run of results as one turn of
    /// `<tool_response>` blocks in `fallbackResultRole` (one turn, so that templates which insist
    /// on alternating roles accept it).
    func lower(_ turns: [ToolConversationTurn], tools: [ToolDescriptor]) throws(ToolPromptError) -> ToolPrompt {
        let toolValues = try tools.map(Self.toolValue)
        return isNative
            ? ToolPrompt(messages: try nativeMessages(turns), tools: toolValues.isEmpty ? nil : toolValues)
            : ToolPrompt(messages: try fallbackMessages(turns, tools: toolValues), tools: nil)
    }

    /// One entry of the `tools` variable.
    static func toolValue(_ tool: ToolDescriptor) throws(ToolPromptError) -> TemplateValue {
        let parameters: TemplateValue
        do {
            parameters = try parseJSON(tool.parametersJSONSchema)
        } catch {
            throw .invalidParametersSchema(tool: tool.name, reason: "\(error)")
        }
        guard case .object = parameters else {
            throw .invalidParametersSchema(tool: tool.name, reason: "not a JSON object")
        }
        return ["type": "function", "function": [
            "name": .string(tool.name), "description": .string(tool.description), "parameters": parameters]]
    }

    /// A call's arguments as a JSON object value.
    private static func argumentsObject(_ call: ToolCallRecord) throws(ToolPromptError) -> TemplateValue {
        let arguments: TemplateValue
        do {
            arguments = try parseJSON(call.argumentsJSON)
        } catch {
            throw .invalidArguments(tool: call.name, reason: "\(error)")
        }
        guard case .object = arguments else { throw .invalidArguments(tool: call.name, reason: "not a JSON object") }
        return arguments
    }

    private func nativeMessages(_ turns: [ToolConversationTurn]) throws(ToolPromptError) -> [ChatMessage] {
        var messages: [ChatMessage] = []
        for turn in turns {
            switch turn {
            case let .system(text): messages.append(ChatMessage(role: "system", content: text))
            case let .user(text): messages.append(ChatMessage(role: "user", content: text))
            case let .assistant(text): messages.append(ChatMessage(role: "assistant", content: text))
            case let .toolCalls(text, calls):
                var values: [TemplateValue] = []
                for call in calls {
                    let object = try Self.argumentsObject(call)
                    let arguments = argumentsEncoding == .object ? object : .string(object.jsonString())
                    values.append(["id": .string(ToolCallID.templateSafe(call.id)), "type": "function",
                                   "function": ["name": .string(call.name), "arguments": arguments]])
                }
                messages.append(ChatMessage(role: "assistant", content: text,
                                            extra: TemplateObject([("tool_calls", .array(values))])))
            case let .toolResult(callID, name, content):
                messages.append(ChatMessage(role: "tool", content: content, extra: TemplateObject([
                    ("tool_call_id", .string(ToolCallID.templateSafe(callID))), ("name", .string(name))])))
            }
        }
        return messages
    }

    private func fallbackMessages(_ turns: [ToolConversationTurn], tools: [TemplateValue]) throws(ToolPromptError) -> [ChatMessage] {
        var messages: [ChatMessage] = []
        var pendingResults: [String] = []
        func flushResults() {
            guard !pendingResults.isEmpty else { return }
            messages.append(ChatMessage(role: fallbackResultRole, content: FallbackToolPrompt.resultsText(pendingResults)))
            pendingResults = []
        }
        for turn in turns {
            if case let .toolResult(_, _, content) = turn {
                pendingResults.append(content)
                continue
            }
            flushResults()
            switch turn {
            case let .system(text): messages.append(ChatMessage(role: "system", content: text))
            case let .user(text): messages.append(ChatMessage(role: "user", content: text))
            case let .assistant(text): messages.append(ChatMessage(role: "assistant", content: text))
            case let .toolCalls(text, calls):
                var parsed: [(name: String, arguments: TemplateValue)] = []
                for call in calls { parsed.append((call.name, try Self.argumentsObject(call))) }
                messages.append(ChatMessage(role: "assistant", content: FallbackToolPrompt.assistantText(text: text, calls: parsed)))
            case .toolResult: break  // gathered into pendingResults above
            }
        }
        flushResults()
        guard !tools.isEmpty else { return messages }
        let block = FallbackToolPrompt.systemBlock(tools: tools)
        if let first = messages.first, first.role == "system" {
            messages[0].content = first.content.isEmpty ? block : first.content + "\n\n" + block
        } else {
            messages.insert(ChatMessage(role: "system", content: block), at: 0)
        }
        return messages
    }
}
