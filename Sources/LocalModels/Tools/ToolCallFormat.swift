// Which text a model writes when it calls a tool. The chat template shows past calls in the
// model's own format, so the template source (and failing that, the special tokens of the
// vocabulary) tells which one to expect.
import LanguageModelAPI

/// The text format of a model's tool calls.
enum ToolCallFormat: Sendable, Equatable, CaseIterable {
    /// Hermes 2/3, Qwen 2.5, Qwen 3: `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`,
    /// one block per call. Also the format the fallback system prompt teaches.
    case hermes
    /// Llama 3.x custom tools: a bare `{"name": …, "parameters": {…}}` object, optionally after
    /// `<|python_tag|>`.
    case llama3
    /// Mistral v0.3 (tokenizer v3): `[TOOL_CALLS] [{"name": …, "arguments": {…}}, …]`.
    case mistral
    /// Newer Mistral models (tokenizer v11 and later): `[TOOL_CALLS]name[ARGS]{…}` per call.
    case mistralNamed

    /// The format a model uses, judged from its chat template and vocabulary.
    ///
    /// A template without tool support gets `.hermes`, because the fallback prompt teaches that
    /// format whatever tokens the vocabulary has (a Llama 3 fine-tune with a ChatML template
    /// still has `<|python_tag|>`). Otherwise the template's own markers decide, first the
    /// Mistral ones (their templates also write JSON `"name"` keys), then Hermes, then Llama 3;
    /// the vocabulary is consulted, in the same order, only when the template shows none of
    /// them. Whether Mistral calls are named (`[ARGS]`) may come from either.
    /// - Parameter vocabularyContains: whether the vocabulary has this exact (special) token.
    static func detect(template: ToolTemplateSupport, vocabularyContains: (String) -> Bool = { _ in false }) -> Self {
        guard template.isNative else { return .hermes }
        let source = template.source
        let mistral: Self = source.contains("[ARGS]") || vocabularyContains("[ARGS]") ? .mistralNamed : .mistral
        if source.contains("[TOOL_CALLS]") { return mistral }
        if source.contains("<tool_call>") { return .hermes }
        if source.contains("<|python_tag|>") || source.contains("<|start_header_id|>") && source.contains("\"parameters\"") {
            return .llama3
        }
        if vocabularyContains("[TOOL_CALLS]") { return mistral }
        if vocabularyContains("<tool_call>") { return .hermes }
        if vocabularyContains("<|python_tag|>") { return .llama3 }
        return .hermes
    }
}
