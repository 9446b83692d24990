import Foundation
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta
import Templates

/// The conversation the tool tests render, the same one `Fixtures/make_tool_renderings.py`
/// renders with jinja2, and the fixture files.
enum ToolFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let templates = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("TemplatesTests/Fixtures/templates")

    static func template(_ name: String) throws -> ChatTemplate {
        try ChatTemplate(source: String(contentsOf: templates.appendingPathComponent("\(name).jinja"), encoding: .utf8))
    }

    /// The jinja2 reference cases (tool-renderings.json).
    static func referenceCases() throws -> [TemplateValue] {
        let text = try String(contentsOf: directory.appendingPathComponent("tool-renderings.json"), encoding: .utf8)
        guard case let .array(cases) = try parseJSON(text) else { return [] }
        return cases
    }

    /// (bos, eos) per template, as in the Python script.
    static let tokens: [String: (String, String)] = [
        "hermes3-tool-use": ("<|begin_of_text|>", "<|im_end|>"),
        "qwen2.5": ("<|endoftext|>", "<|im_end|>"),
        "qwen3": ("<|endoftext|>", "<|im_end|>"),
        "llama3": ("<|begin_of_text|>", "<|eot_id|>"),
        "mistral-v0.3": ("<s>", "</s>"),
        "smollm2": ("<|im_start|>", "<|im_end|>"),
        "gemma3": ("<bos>", "<eos>"),
    ]
    static let extra: [String: TemplateValue] = ["date_string": "15 Jan 2026"]

    static let weatherSchema = """
        {"type": "object", "properties": {"city": {"type": "string", "description": "City name, e.g. Zürich"}, \
        "unit": {"type": "string", "description": "Temperature unit", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}
        """
    static let tools = [
        ToolDescriptor(name: "get_weather", description: "Get the current weather in a city", parametersJSONSchema: weatherSchema),
        ToolDescriptor(name: "get_time", description: "Get the current time", parametersJSONSchema: #"{"type": "object", "properties": {}}"#),
    ]

    static let weather = ToolCallRecord(id: "call0w3th", name: "get_weather", argumentsJSON: #"{"city": "Zürich", "unit": "celsius"}"#)
    static let time = ToolCallRecord(id: "call1t1me", name: "get_time", argumentsJSON: "{}")
    static let weatherResult = ToolConversationTurn.toolResult(
        callID: "call0w3th", name: "get_weather", content: #"{"temperature": 21, "condition": "sunny"}"#)
    static let opening: [ToolConversationTurn] = [
        .system("You are a concise assistant."), .user("What's the weather in Zürich, and what time is it?"),
    ]

    static let scenarios: [String: [ToolConversationTurn]] = [
        "single": opening + [.toolCalls(text: "", calls: [weather]), weatherResult],
        "parallel": opening + [
            .toolCalls(text: "", calls: [weather, time]), weatherResult,
            .toolResult(callID: "call1t1me", name: "get_time", content: "09:30"),
            .assistant("It is sunny and 21 °C in Zürich; the time is 09:30."),
        ],
    ]

    /// Lowers and renders `scenario` with the named template, as a session would.
    static func render(_ name: String, scenario: String) throws -> (prompt: ToolPrompt, text: String) {
        let template = try template(name)
        let prompt = try ToolTemplateSupport(template: template).lower(scenarios[scenario]!, tools: tools)
        let (bos, eos) = tokens[name]!
        let text = try template.render(messages: prompt.messages, addGenerationPrompt: true, bosToken: bos, eosToken: eos,
                                       tools: prompt.tools, extra: extra)
        return (prompt, text)
    }
}
