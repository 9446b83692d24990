// Transcript -> chat messages -> prompt text (the model's own template) -> token ids.
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
}

extension ModelWeights {
    /// Renders `transcript` as the model's template would for a request, and tokenizes it.
    ///
    /// Instructions become the `system` message, prompts `user`, responses `assistant`, tool
    /// calls an `assistant` message with `tool_calls`, tool outputs `tool` messages; reasoning
    /// entries are left out, as reasoning templates drop past thinking from history.
    /// The template's own text may hold control tokens (`<|im_start|>`); the messages' content
    /// never becomes one, even if a user types `<|im_end|>`. BOS is added only when the
    /// tokenizer wants it and the template did not already write it.
    func render(_ transcript: some Collection<Transcript.Entry>, _ options: RenderOptions = RenderOptions()) throws -> RenderedPrompt {
        var messages: [ChatMessage] = []
        for entry in transcript {
            guard let message = try chatMessage(for: entry) else { continue }
            messages.append(message)
        }
        if let suffix = options.promptSuffix, let last = messages.lastIndex(where: { $0.role == "user" }) {
            messages[last].content += suffix
        }
        var extra: [String: TemplateValue] = [:]
        if let enableThinking = options.enableThinking { extra["enable_thinking"] = .bool(enableThinking) }
        let text = try template.render(messages: messages, addGenerationPrompt: options.addGenerationPrompt,
                                       bosToken: bosText, eosToken: eosText, extra: extra)
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

    /// The message for one entry, or nil for entries that are not sent back (reasoning).
    private func chatMessage(for entry: Transcript.Entry) throws -> ChatMessage? {
        if case .reasoning = entry { return nil }
        if case let .toolCalls(calls) = entry {
            return ChatMessage(role: "assistant", content: calls.map { call in
                "<tool_call>\n{\"name\": \"\(call.toolName)\", \"arguments\": \(call.arguments.jsonString)}\n</tool_call>"
            }.joined(separator: "\n"))
        }
        guard let text = entry.plainText else {
            throw LanguageModelError.unsupportedTranscriptContent(.init(
                unsupportedContent: [entry], debugDescription: "only text, structured and custom segments can be rendered"))
        }
        switch entry {
        case .instructions: return ChatMessage(role: "system", content: text)
        case .prompt: return ChatMessage(role: "user", content: text)
        case .response: return ChatMessage(role: "assistant", content: text)
        case .toolOutput: return ChatMessage(role: "tool", content: text)
        case .reasoning, .toolCalls: return nil
        }
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
