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

extension ModelWeights {
    /// Renders `transcript` as the model's template would for a request, and tokenizes it.
    ///
    /// Instructions become the `system` message, prompts `user`, responses `assistant`;
    /// reasoning entries are left out, as reasoning templates drop past thinking from history.
    /// Tokenization parses special-token text (the template writes control tokens as text) and
    /// adds BOS only when the tokenizer wants it and the template did not already write it.
    /// - Parameter enableThinking: passed to the template as `enable_thinking` when set.
    func render(_ transcript: some Collection<Transcript.Entry>, addGenerationPrompt: Bool = true,
                enableThinking: Bool? = nil) throws -> RenderedPrompt {
        var messages: [ChatMessage] = []
        for entry in transcript {
            guard let text = entry.plainText else {
                throw LanguageModelError.unsupportedTranscriptContent(.init(
                    unsupportedContent: [entry], debugDescription: "only text segments can be rendered"))
            }
            switch entry {
            case .instructions: messages.append(ChatMessage(role: "system", content: text))
            case .prompt: messages.append(ChatMessage(role: "user", content: text))
            case .response: messages.append(ChatMessage(role: "assistant", content: text))
            case .reasoning: continue
            }
        }
        var extra: [String: TemplateValue] = [:]
        if let enableThinking { extra["enable_thinking"] = .bool(enableThinking) }
        let text = try template.render(messages: messages, addGenerationPrompt: addGenerationPrompt,
                                       bosToken: bosText, eosToken: eosText, extra: extra)
        var tokens = tokenizer.encode(text, addSpecial: false, parseSpecial: true)
        // Not `addSpecial: true`: that could also append EOS, and would double a BOS the
        // template already wrote.
        if tokenizer.addsBOS, let bos = tokenizer.bosID, tokens.first != bos { tokens.insert(bos, at: 0) }
        var inside = false
        if let markers = thinkMarkers, let open = tokens.lastIndex(of: markers.open) {
            inside = !tokens[open...].contains(markers.close)
        }
        return RenderedPrompt(text: text, tokens: tokens, startsInsideThinking: inside)
    }
}
