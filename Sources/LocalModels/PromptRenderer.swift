// Transcript -> chat messages -> prompt text (the model's own template) -> token ids.
import LanguageModelAPI
import Foundation
import Templates

/// A rendered, tokenized prompt.
struct RenderedPrompt {
    let text: String
    let tokens: [Int32]
    /// Whether the prompt leaves the model inside an open think block (templates such as
    /// DeepSeek-R1's end the generation prompt with `<think>`).
    let startsInsideThinking: Bool
}

/// What a request adds to the transcript's own messages when it is rendered.
struct RenderOptions {
    var addGenerationPrompt = true
    /// Passed to the template as `enable_thinking` when set.
    var enableThinking: Bool?
    /// Text appended to the last user message (for example the schema to follow).
    var promptSuffix: String?
    /// The tools offered to the model; nil = those of the transcript's instructions.
    var tools: [Transcript.ToolDefinition]?
}

extension LoadedModel {
    /// Renders `transcript` as the model's template would for a request, and tokenizes it.
    ///
    /// Instructions become the `system` message, prompts `user`, responses `assistant`, tool
    /// calls an `assistant` message with `tool_calls`, tool outputs `tool` messages; reasoning
    /// entries are left out, as reasoning templates drop past thinking from history.
    /// The template's own text may hold control tokens (`<|im_start|>`); the messages' content
    /// never becomes one, even if a user types `<|im_end|>`. BOS is added only when the
    /// tokenizer wants it and the template did not already write it.
    func render(_ transcript: some Collection<Transcript.Entry>, _ options: RenderOptions = RenderOptions()) throws -> RenderedPrompt {
        var turns: [ToolConversationTurn] = []
        var instructionTools: [Transcript.ToolDefinition] = []
        for entry in transcript {
            if case let .instructions(i) = entry { instructionTools = i.toolDefinitions }
            if let turn = try conversationTurn(for: entry) { turns.append(turn) }
        }
        let prompt: ToolPrompt
        do {
            prompt = try toolSupport.lower(turns, tools: try (options.tools ?? instructionTools).map(Self.descriptor))
        } catch {
            throw LanguageModelError.unsupportedTranscriptContent(.init(unsupportedContent: [], debugDescription: "\(error)"))
        }
        var messages = prompt.messages
        if let suffix = options.promptSuffix, let last = messages.lastIndex(where: { $0.role == "user" }) {
            messages[last].content += suffix
        }
        var extra: [String: TemplateValue] = [:]
        if let enableThinking = options.enableThinking { extra["enable_thinking"] = .bool(enableThinking) }
        let text = try template.render(messages: messages, addGenerationPrompt: options.addGenerationPrompt,
                                       bosToken: bosText, eosToken: eosText, tools: prompt.tools, extra: extra)
        var tokens = tokenizer.encode(text, addSpecial: false, parseSpecial: true,
                                      literalRanges: Self.contentRanges(of: messages.map(\.content), in: text))
        // Not `addSpecial: true`: that could also append EOS, and would double a BOS the
        // template already wrote.
        if tokenizer.addsBOS, let bos = tokenizer.bosID, tokens.first != bos { tokens.insert(bos, at: 0) }
        var inside = false
        if let markers = thinkMarkers, let open = tokens.lastIndex(of: markers.open) {
            inside = !tokens[open...].contains(markers.close)
        }
        return RenderedPrompt(text: text, tokens: tokens, startsInsideThinking: inside)
    }

    /// Renders `transcript` as `render(_:_:)` does with only the generation-prompt choice set.
    func render(_ transcript: some Collection<Transcript.Entry>, addGenerationPrompt: Bool) throws -> RenderedPrompt {
        var options = RenderOptions()
        options.addGenerationPrompt = addGenerationPrompt
        return try render(transcript, options)
    }

    /// The conversation turn of one entry, or nil for entries that are not sent back
    /// (reasoning) and instructions without text.
    private func conversationTurn(for entry: Transcript.Entry) throws -> ToolConversationTurn? {
        switch entry {
        case .reasoning: return nil
        case let .toolCalls(calls):
            return .toolCalls(text: "", calls: calls.map {
                ToolCallRecord(id: $0.id, name: $0.toolName, argumentsJSON: $0.arguments.jsonString)
            })
        default: break
        }
        guard let text = entry.plainText else {
            throw LanguageModelError.unsupportedTranscriptContent(.init(
                unsupportedContent: [entry], debugDescription: "only text, structured and custom segments can be rendered"))
        }
        switch entry {
        case .instructions: return text.isEmpty ? nil : .system(text)
        case .prompt: return .user(text)
        case .response: return .assistant(text)
        case let .toolOutput(output): return .toolResult(callID: output.id, name: output.toolName, content: text)
        case .reasoning, .toolCalls: return nil
        }
    }

    /// A tool definition as the template layer takes it (parameters as JSON Schema text).
    /// Written by `JSONSchemaWriter`, so the bytes are the same in every process and properties
    /// keep their declared order (`JSONEncoder` writes keys in hash order, which changes with
    /// each process's hash seed; sorted keys would reorder the properties).
    private static func descriptor(_ definition: Transcript.ToolDefinition) throws -> ToolDescriptor {
        let schema = JSONSchemaWriter.document(try SchemaResolver.resolve(definition.parameters))
        return ToolDescriptor(name: definition.name, description: definition.description, parametersJSONSchema: schema.jsonString)
    }

    /// The UTF-8 byte ranges where each message's content (or, for templates that trim, its
    /// trimmed content) appears in `text`, searched in order. Content the template changed
    /// beyond trimming is not found; it then gets no protection, as before this check existed.
    static func contentRanges(of contents: [String], in text: String) -> [Range<Int>] {
        let bytes = Array(text.utf8)
        var ranges: [Range<Int>] = []
        var cursor = 0
        for content in contents {
            for candidate in [content, content.trimmingWhitespace] where !candidate.isEmpty {
                let needle = Array(candidate.utf8)
                if let start = find(needle, in: bytes, from: cursor) {
                    ranges.append(start..<start + needle.count)
                    cursor = start + needle.count
                    break
                }
            }
        }
        return ranges
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count <= haystack.count - start else { return nil }
        var i = start
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0] && haystack[i..<i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}

private extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
