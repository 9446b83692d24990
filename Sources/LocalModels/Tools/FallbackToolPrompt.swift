// The tool prompt for templates that know nothing of tools: the tools and the Hermes call
// format go into the system prompt, and calls and results become ordinary turns.
import LanguageModelAPI
import Templates

/// Texts of the system-prompt fallback, in the Hermes format (`ToolCallFormat.hermes`).
enum FallbackToolPrompt {
    /// The system-prompt block listing `tools` (the OpenAI-style objects of `toolsVariable`)
    /// and the exact call format. The wording is Qwen 2.5's, which small models follow well.
    static func systemBlock(tools: [TemplateValue]) -> String {
        var text = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        text += "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
        for tool in tools { text += "\n" + tool.jsonString() }
        text += "\n</tools>\n\nFor each function call, return a json object with function name and arguments "
        text += "within <tool_call></tool_call> XML tags:\n<tool_call>\n"
        text += "{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>\n\n"
        text += "The results of the calls come back in the same order, each within <tool_response></tool_response> XML tags."
        return text
    }

    /// An assistant turn's text: what the model wrote, then one `<tool_call>` block per call,
    /// as the model is told to write them.
    static func assistantText(text: String, calls: [(name: String, arguments: TemplateValue)]) -> String {
        let blocks = calls.map { call in
            let json: TemplateValue = ["name": .string(call.name), "arguments": call.arguments]
            return "<tool_call>\n" + json.jsonString() + "\n</tool_call>"
        }
        return ([text].filter { !$0.isEmpty } + blocks).joined(separator: "\n")
    }

    /// One turn's text for consecutive tool results, each in a `<tool_response>` block.
    static func resultsText(_ contents: [String]) -> String {
        contents.map { "<tool_response>\n" + $0 + "\n</tool_response>" }.joined(separator: "\n")
    }
}
