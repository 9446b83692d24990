// What a chat template does with tools, found once per model by reading its source and by
// rendering small probe conversations (as llama.cpp's minja does), because templates differ in
// ways their text alone does not settle reliably.
import LanguageModelAPI
import Templates

/// How a template takes tools, tool calls and tool results.
struct ToolTemplateSupport: Sendable, Equatable {
    /// How a template wants a call's `arguments`.
    enum ArgumentsEncoding: Sendable, Equatable {
        /// A JSON object (the Hugging Face convention; Qwen 2.5, Llama 3.x and Mistral apply
        /// `tojson` to it, which would double-encode a string).
        case object
        /// The JSON text as a string (templates that print `arguments` as is).
        case jsonString
    }

    /// The template text.
    let source: String
    /// Whether the template renders `tools`, `tool_calls` and `role: "tool"` messages itself.
    /// When false, tools are described in the system prompt (see `FallbackToolPrompt`).
    let isNative: Bool
    /// How native templates want call arguments.
    let argumentsEncoding: ArgumentsEncoding
    /// The role of tool results for templates without tool support: `"tool"` when the template
    /// prints any role it is given (as ChatML templates such as SmolLM2's do), else `"user"`
    /// (for templates such as Gemma 3's that only know user and assistant turns).
    let fallbackResultRole: String

    /// Examines `template`.
    ///
    /// The support heuristic: a template supports tools when its source mentions `tools`, the
    /// variable through which Hugging Face and llama.cpp hand it the tool list. Every template
    /// that renders tool calls also reads that variable, and templates without tool support
    /// have no reason to name it. A template that only names it in a comment would be taken
    /// for a native one; none of the common ones do.
    init(template: ChatTemplate) {
        source = template.source
        isNative = template.source.contains("tools")
        argumentsEncoding = isNative ? Self.probeArgumentsEncoding(template) : .object
        fallbackResultRole = isNative ? "tool" : Self.probeFallbackResultRole(template)
    }

    /// Renders one call with object arguments and, failing that, with string arguments, and
    /// keeps the first encoding whose JSON shows up in the output unchanged.
    private static func probeArgumentsEncoding(_ template: ChatTemplate) -> ArgumentsEncoding {
        let arguments: TemplateValue = ["quantaProbe": "yes"]
        let expected = arguments.jsonString()
        for (encoding, value) in [(ArgumentsEncoding.object, arguments), (.jsonString, .string(expected))] {
            let call: TemplateValue = ["id": "quantaP01", "type": "function",
                                       "function": ["name": "probe_tool", "arguments": value]]
            let messages = [
                ChatMessage(role: "user", content: "Probe?"),
                ChatMessage(role: "assistant", content: "", extra: TemplateObject([("tool_calls", [call])])),
                ChatMessage(role: "tool", content: "done",
                            extra: TemplateObject([("tool_call_id", "quantaP01"), ("name", "probe_tool")])),
            ]
            let tool: TemplateValue = ["type": "function", "function": [
                "name": "probe_tool", "description": "Probe.",
                "parameters": ["type": "object", "properties": [:]]]]
            if let text = try? template.render(messages: messages, addGenerationPrompt: false, tools: [tool]),
               text.contains(expected) {
                return encoding
            }
        }
        return .object
    }

    /// Renders a `tool` turn after a user and an assistant turn and checks that both the content
    /// and the role name reach the output.
    private static func probeFallbackResultRole(_ template: ChatTemplate) -> String {
        let marker = "Q7PROBE"
        let messages = [
            ChatMessage(role: "user", content: "Hi"),
            ChatMessage(role: "assistant", content: "Hello"),
            ChatMessage(role: "tool", content: marker),
        ]
        guard let text = try? template.render(messages: messages, addGenerationPrompt: false),
              text.contains(marker), text.contains("tool") else { return "user" }
        return "tool"
    }
}
