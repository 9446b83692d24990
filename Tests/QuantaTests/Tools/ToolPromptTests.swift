import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta
import Templates

/// Tools, calls and results lowered for real chat templates and rendered.
@Suite struct ToolPromptTests {
    /// Native templates: the lowering yields exactly the OpenAI-shaped messages and tools that
    /// transformers passes, and rendering them gives jinja2's output byte for byte (or the same
    /// failure, for Llama 3's one-call-per-turn rule).
    @Test func nativeTemplatesMatchJinja2() throws {
        let cases = try ToolFixtures.referenceCases()
        #expect(cases.count == 10)
        for reference in cases {
            let name = try #require(reference["template"]?.stringValue)
            let scenario = try #require(reference["scenario"]?.stringValue)
            let template = try ToolFixtures.template(name)
            let prompt = try ToolTemplateSupport(template: template).lower(ToolFixtures.scenarios[scenario]!, tools: ToolFixtures.tools)
            #expect(.array(prompt.messages.map(\.templateValue)) == reference["messages"], "\(name) \(scenario)")
            #expect(prompt.tools.map(TemplateValue.array) == reference["tools"], "\(name) \(scenario)")
            let (bos, eos) = ToolFixtures.tokens[name]!
            let render = { () throws -> String in
                try template.render(messages: prompt.messages, addGenerationPrompt: true, bosToken: bos, eosToken: eos,
                                    tools: prompt.tools, extra: ToolFixtures.extra)
            }
            if let expected = reference["expected"]?.stringValue {
                #expect(try render() == expected, "\(name) \(scenario)")
            } else {
                #expect(throws: TemplateError.self, "\(name) \(scenario)") { try render() }
            }
        }
    }

    /// What the model cards document, independently of the fixture: Qwen's tool list and
    /// results as user turns, Llama 3's `ipython` turn, Mistral's tool blocks.
    @Test func nativeRenderingsShowToolsCallsAndResults() throws {
        let weatherTool = #"{"type": "function", "function": {"name": "get_weather", "description": "Get the current weather in a city", "parameters": {"type": "object""#
        let qwen = try ToolFixtures.render("qwen2.5", scenario: "single").text
        #expect(qwen.contains("<tools>\n" + weatherTool))
        #expect(qwen.contains("<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Zürich\", \"unit\": \"celsius\"}}\n</tool_call><|im_end|>"))
        #expect(qwen.contains("<|im_start|>user\n<tool_response>\n{\"temperature\": 21, \"condition\": \"sunny\"}\n</tool_response><|im_end|>"))

        let llama = try ToolFixtures.render("llama3", scenario: "single").text
        #expect(llama.contains("Environment: ipython\n"))
        #expect(llama.contains(#"{"name": "get_weather", "parameters": {"city": "Zürich", "unit": "celsius"}}<|eot_id|>"#))
        #expect(llama.contains("<|start_header_id|>ipython<|end_header_id|>\n\n"))

        let mistral = try ToolFixtures.render("mistral-v0.3", scenario: "single").text
        #expect(mistral.contains("[AVAILABLE_TOOLS] [" + weatherTool))
        #expect(mistral.contains(#"[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Zürich", "unit": "celsius"}, "id": "call0w3th"}]</s>"#))
        #expect(mistral.contains(#"[TOOL_RESULTS] {"content": {"temperature": 21, "condition": "sunny"}, "call_id": "call0w3th"}[/TOOL_RESULTS]"#))
    }

    /// Support detection: `tools` in the source; result roles by probing.
    @Test func supportDetection() throws {
        for name in ["hermes3-tool-use", "qwen2.5", "qwen3", "llama3", "mistral-v0.3"] {
            let support = ToolTemplateSupport(template: try ToolFixtures.template(name))
            #expect(support.isNative, "\(name)")
            #expect(support.argumentsEncoding == .object, "\(name)")
        }
        let smol = ToolTemplateSupport(template: try ToolFixtures.template("smollm2"))
        #expect(!smol.isNative && smol.fallbackResultRole == "tool")
        let gemma = ToolTemplateSupport(template: try ToolFixtures.template("gemma3"))
        #expect(!gemma.isNative && gemma.fallbackResultRole == "user")
    }

    /// A template that prints `arguments` as is gets the JSON text, not a Python-style dict.
    @Test func templatePrintingArgumentsVerbatimGetsAString() throws {
        let template = try ChatTemplate(source: """
            {%- if tools %}{{ tools | length }} tools{% endif %}
            {%- for m in messages %}{% for c in m.tool_calls or [] %}CALL {{ c.function.arguments }}{% endfor %}{% endfor %}
            """)
        let support = ToolTemplateSupport(template: template)
        #expect(support.argumentsEncoding == .jsonString)
        let prompt = try support.lower([.user("Hi"), .toolCalls(text: "", calls: [ToolFixtures.weather])], tools: ToolFixtures.tools)
        let text = try template.render(messages: prompt.messages, tools: prompt.tools)
        #expect(text == #"2 toolsCALL {"city": "Zürich", "unit": "celsius"}"#)
    }

    /// SmolLM2 (ChatML, no tool support): tools and the Hermes format in the system prompt,
    /// the call as assistant text, results in a `tool` turn.
    @Test func smolLM2Fallback() throws {
        let (prompt, text) = try ToolFixtures.render("smollm2", scenario: "single")
        #expect(prompt.tools == nil)
        #expect(text.hasPrefix("<|im_start|>system\nYou are a concise assistant.\n\n# Tools\n"))
        #expect(text.contains("<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Get the current weather in a city\", \"parameters\": {\"type\": \"object\", \"properties\": {\"city\""))
        #expect(text.contains("{\"name\": \"get_time\", \"description\": \"Get the current time\", \"parameters\": {\"type\": \"object\", \"properties\": {}}}}\n</tools>"))
        #expect(text.contains("<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>"))
        #expect(text.contains("<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Zürich\", \"unit\": \"celsius\"}}\n</tool_call><|im_end|>\n"))
        #expect(text.hasSuffix("<|im_start|>tool\n<tool_response>\n{\"temperature\": 21, \"condition\": \"sunny\"}\n</tool_response><|im_end|>\n<|im_start|>assistant\n"))
    }

    /// Gemma 3 insists on alternating user/model turns: the system block folds into the first
    /// user turn and both results share one user turn.
    @Test func gemma3Fallback() throws {
        let (prompt, text) = try ToolFixtures.render("gemma3", scenario: "parallel")
        #expect(prompt.messages.map(\.role) == ["system", "user", "assistant", "user", "assistant"])
        #expect(text.hasPrefix("<bos><start_of_turn>user\nYou are a concise assistant.\n\n# Tools\n"))
        #expect(text.contains("<start_of_turn>model\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Zürich\", \"unit\": \"celsius\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call><end_of_turn>\n"))
        #expect(text.contains("<start_of_turn>user\n<tool_response>\n{\"temperature\": 21, \"condition\": \"sunny\"}\n</tool_response>\n<tool_response>\n09:30\n</tool_response><end_of_turn>\n<start_of_turn>model\nIt is sunny"))
    }

    /// The fallback's assistant text is what the Hermes parser reads back.
    @Test func fallbackCallTextParsesBack() throws {
        let (prompt, _) = try ToolFixtures.render("gemma3", scenario: "parallel")
        let parsed = try ToolCallFormat.hermes.parse(prompt.messages[2].content)
        #expect(parsed.calls == [ParsedToolCall(name: "get_weather", argumentsJSON: ToolFixtures.weather.argumentsJSON),
                                 ParsedToolCall(name: "get_time", argumentsJSON: "{}")])
    }

    /// Without a system turn the fallback adds one; without tools it adds nothing.
    @Test func fallbackSystemMessagePlacement() throws {
        let support = ToolTemplateSupport(template: try ToolFixtures.template("smollm2"))
        let withTools = try support.lower([.user("Hi")], tools: ToolFixtures.tools)
        #expect(withTools.messages.map(\.role) == ["system", "user"])
        #expect(withTools.messages[0].content.hasPrefix("# Tools\n"))
        let withoutTools = try support.lower([.system("Be brief."), .user("Hi")], tools: [])
        #expect(withoutTools.messages == [ChatMessage(role: "system", content: "Be brief."), ChatMessage(role: "user", content: "Hi")])
        #expect(try ToolTemplateSupport(template: try ToolFixtures.template("qwen2.5")).lower([.user("Hi")], tools: []).tools == nil)
    }

    /// Ids become nine alphanumerics (Mistral's rule), the same for a call and its result.
    @Test func callIDsAreMadeTemplateSafe() throws {
        #expect(ToolCallID.templateSafe("call0w3th") == "call0w3th")
        let uuid = "9F2C1B7E-0D4A-4F3B-8E21-6C5D7A9B0E13"
        let safe = ToolCallID.templateSafe(uuid)
        #expect(safe.count == 9 && safe.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(safe == ToolCallID.templateSafe(uuid) && safe != ToolCallID.templateSafe(uuid + "x"))
        let template = try ToolFixtures.template("mistral-v0.3")
        let prompt = try ToolTemplateSupport(template: template).lower([
            .user("Weather?"), .toolCalls(text: "", calls: [ToolCallRecord(id: uuid, name: "get_weather", argumentsJSON: "{}")]),
            .toolResult(callID: uuid, name: "get_weather", content: "sunny"),
        ], tools: ToolFixtures.tools)
        let text = try template.render(messages: prompt.messages, tools: prompt.tools)
        #expect(text.contains(#""id": "\#(safe)"}]"#) && text.contains(#""call_id": "\#(safe)"}"#))
    }

    @Test func invalidSchemasAndArgumentsAreTypedErrors() throws {
        let support = ToolTemplateSupport(template: try ToolFixtures.template("qwen2.5"))
        #expect(throws: ToolPromptError.invalidParametersSchema(tool: "t", reason: "not a JSON object")) {
            try support.lower([], tools: [ToolDescriptor(name: "t", description: "", parametersJSONSchema: "[1]")])
        }
        #expect(throws: ToolPromptError.self) {
            try support.lower([], tools: [ToolDescriptor(name: "t", description: "", parametersJSONSchema: "{\"type\": ")])
        }
        #expect(throws: ToolPromptError.invalidArguments(tool: "t", reason: "not a JSON object")) {
            try support.lower([.toolCalls(text: "", calls: [ToolCallRecord(id: "a", name: "t", argumentsJSON: "\"x\"")])], tools: [])
        }
    }

    /// The format each fixture template teaches, and the vocabulary as a tie-breaker.
    @Test func formatDetection() throws {
        let expected: [String: ToolCallFormat] = [
            "hermes3-tool-use": .hermes, "qwen2.5": .hermes, "qwen3": .hermes, "llama3": .llama3,
            "mistral-v0.3": .mistral, "smollm2": .hermes, "gemma3": .hermes,
        ]
        for (name, format) in expected {
            let support = ToolTemplateSupport(template: try ToolFixtures.template(name))
            #expect(ToolCallFormat.detect(template: support) == format, "\(name)")
        }
        let mistral = ToolTemplateSupport(template: try ToolFixtures.template("mistral-v0.3"))
        #expect(ToolCallFormat.detect(template: mistral) { $0 == "[ARGS]" } == .mistralNamed)
        // A ChatML template on a Llama 3 vocabulary is taught the Hermes format by the fallback.
        let smol = ToolTemplateSupport(template: try ToolFixtures.template("smollm2"))
        #expect(ToolCallFormat.detect(template: smol) { $0 == "<|python_tag|>" } == .hermes)
        // A tool-aware template with no markers of its own: the vocabulary decides.
        let generic = ToolTemplateSupport(template: try ChatTemplate(source: "{{ tools }}"))
        #expect(ToolCallFormat.detect(template: generic) { $0 == "<|python_tag|>" } == .llama3)
        #expect(ToolCallFormat.detect(template: generic) { $0 == "[TOOL_CALLS]" } == .mistral)
        #expect(ToolCallFormat.detect(template: generic) == .hermes)
        // The template's markers outrank the vocabulary's.
        let qwen = ToolTemplateSupport(template: try ToolFixtures.template("qwen2.5"))
        #expect(ToolCallFormat.detect(template: qwen) { $0 == "[TOOL_CALLS]" } == .hermes)
    }
}
