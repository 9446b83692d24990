import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

/// Generated text -> tool calls, for every format, including malformed input.
@Suite struct ToolCallParserTests {
    let weather = ParsedToolCall(name: "get_weather", argumentsJSON: #"{"city": "Zürich", "unit": "celsius"}"#)
    let time = ParsedToolCall(name: "get_time", argumentsJSON: "{}")

    // MARK: Hermes

    @Test func hermesCalls() throws {
        let one = try ToolCallFormat.hermes.parse("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Zürich\", \"unit\": \"celsius\"}}\n</tool_call>")
        #expect(one == ParsedToolOutput(text: "", calls: [weather], trailingText: ""))

        let spaced = try ToolCallFormat.hermes.parse("""
            Let me check.

            <tool_call>  {"name":"get_weather",
              "arguments":{ "city":"Zürich","unit":"celsius" } }
            </tool_call>
            <tool_call>{"name": "get_time", "arguments": {}}</tool_call>\n
            """)
        // The arguments are the model's own bytes, spacing and all.
        let spacedWeather = ParsedToolCall(name: "get_weather", argumentsJSON: #"{ "city":"Zürich","unit":"celsius" }"#)
        #expect(spaced == ParsedToolOutput(text: "Let me check.", calls: [spacedWeather, time], trailingText: ""))
    }

    @Test func hermesLenientCases() throws {
        // Stopped at end of turn before the closing tag; arguments written as a JSON string;
        // no arguments at all; OpenAI-style nesting.
        #expect(try ToolCallFormat.hermes.parse("<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}").calls == [time])
        #expect(try ToolCallFormat.hermes.parse(#"<tool_call>{"name": "get_weather", "arguments": "{\"city\": \"Zürich\", \"unit\": \"celsius\"}"}</tool_call>"#).calls == [weather])
        #expect(try ToolCallFormat.hermes.parse(#"<tool_call>{"name": "get_time"}</tool_call>"#).calls == [time])
        #expect(try ToolCallFormat.hermes.parse(#"<tool_call>{"type": "function", "function": {"name": "get_time", "arguments": {}}}</tool_call>"#).calls == [time])
        // A closing tag inside a string is part of the string.
        #expect(try ToolCallFormat.hermes.parse(#"<tool_call>{"name": "echo", "arguments": {"s": "</tool_call>"}}</tool_call> done"#)
            == ParsedToolOutput(text: "", calls: [ParsedToolCall(name: "echo", argumentsJSON: #"{"s": "</tool_call>"}"#)], trailingText: "done"))
    }

    @Test func hermesPlainText() throws {
        let text = "The weather is {\"sunny\"} today."
        #expect(try ToolCallFormat.hermes.parse(text) == ParsedToolOutput(text: text, calls: [], trailingText: ""))
    }

    @Test func hermesMalformed() {
        #expect(throws: ToolCallParseError.self) { try ToolCallFormat.hermes.parse("<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}\n</tool_call>") }
        #expect(throws: ToolCallParseError.self) { try ToolCallFormat.hermes.parse("<tool_call>{\"name\": \"x\", \"arguments\": {\"a\": }}</tool_call>") }
        #expect(throws: ToolCallParseError.self) { try ToolCallFormat.hermes.parse("<tool_call>{'name': 'x'}</tool_call>") }
        #expect(throws: ToolCallParseError.self) { try ToolCallFormat.hermes.parse("<tool_call>get_time()</tool_call>") }
        #expect(throws: ToolCallParseError.self) { try ToolCallFormat.hermes.parse("<tool_call>") }
        #expect(throws: ToolCallParseError.missingName) { try ToolCallFormat.hermes.parse(#"<tool_call>{"arguments": {}}</tool_call>"#) }
        #expect(throws: ToolCallParseError.missingName) { try ToolCallFormat.hermes.parse(#"<tool_call>{"name": 3, "arguments": {}}</tool_call>"#) }
        #expect(throws: ToolCallParseError.invalidArguments(tool: "x")) { try ToolCallFormat.hermes.parse(#"<tool_call>{"name": "x", "arguments": [1]}</tool_call>"#) }
        #expect(throws: ToolCallParseError.invalidArguments(tool: "x")) { try ToolCallFormat.hermes.parse(#"<tool_call>{"name": "x", "arguments": "not json"}</tool_call>"#) }
        #expect(throws: ToolCallParseError.malformedEnvelope("expected </tool_call>")) {
            try ToolCallFormat.hermes.parse(#"<tool_call>{"name": "x", "arguments": {}} oops</tool_call>"#)
        }
    }

    // MARK: Llama 3

    @Test func llama3Calls() throws {
        #expect(try ToolCallFormat.llama3.parse(#"{"name": "get_weather", "parameters": {"city": "Zürich", "unit": "celsius"}}"#)
            == ParsedToolOutput(text: "", calls: [weather], trailingText: ""))
        #expect(try ToolCallFormat.llama3.parse("<|python_tag|>{\"name\": \"get_time\", \"arguments\": {}}").calls == [time])
        #expect(try ToolCallFormat.llama3.parse("Sure.\n\n{ \"name\" : \"get_time\",\n \"parameters\": {} }\n")
            == ParsedToolOutput(text: "Sure.", calls: [time], trailingText: ""))
        #expect(try ToolCallFormat.llama3.parse(#"{"name": "get_weather", "parameters": {"city": "Zürich", "unit": "celsius"}}; {"name": "get_time", "parameters": {}}"#).calls
            == [weather, time])
    }

    @Test func llama3PlainText() throws {
        for text in ["Hello there.", #"The answer is {"value": 42}."#, "{ not json at all", #"Found {"name": "Ada", "age": 36}."#] {
            #expect(try ToolCallFormat.llama3.parse(text) == ParsedToolOutput(text: text, calls: [], trailingText: ""))
        }
    }

    @Test func llama3Malformed() {
        #expect(throws: ToolCallParseError.self) { try ToolCallFormat.llama3.parse(#"{"name": "x", "parameters": {"a": }}"#) }
        #expect(throws: ToolCallParseError.self) { try ToolCallFormat.llama3.parse(#"{"name": "x", "parameters": {"a": 1}"#) }
        #expect(throws: ToolCallParseError.self) { try ToolCallFormat.llama3.parse("<|python_tag|>get_time()") }
        #expect(throws: ToolCallParseError.self) { try ToolCallFormat.llama3.parse("<|python_tag|>") }
        #expect(throws: ToolCallParseError.invalidArguments(tool: "x")) { try ToolCallFormat.llama3.parse(#"{"name": "x", "parameters": 5}"#) }
    }

    // MARK: Mistral

    @Test func mistralArrayCalls() throws {
        let text = #"[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Zürich", "unit": "celsius"}, "id": "call0w3th"}, {"name": "get_time", "arguments": {}}]"#
        #expect(try ToolCallFormat.mistral.parse(text) == ParsedToolOutput(text: "", calls: [weather, time], trailingText: ""))
        #expect(try ToolCallFormat.mistral.parse("Checking.[TOOL_CALLS]\n[\n {\"name\":\"get_time\",\"arguments\":{}}\n]\n").calls == [time])
    }

    @Test func mistralNamedCalls() throws {
        let text = #"[TOOL_CALLS]get_weather[ARGS]{"city": "Zürich", "unit": "celsius"}[TOOL_CALLS]get_time[ARGS]{}"#
        #expect(try ToolCallFormat.mistralNamed.parse(text) == ParsedToolOutput(text: "", calls: [weather, time], trailingText: ""))
        // Either Mistral format reads both styles.
        #expect(try ToolCallFormat.mistral.parse(text).calls == [weather, time])
        #expect(try ToolCallFormat.mistralNamed.parse(#"[TOOL_CALLS] [{"name": "get_time", "arguments": {}}]"#).calls == [time])
    }

    @Test func mistralPlainText() throws {
        #expect(try ToolCallFormat.mistral.parse("No tools [needed].") == ParsedToolOutput(text: "No tools [needed].", calls: [], trailingText: ""))
    }

    @Test func mistralMalformed() {
        #expect(throws: ToolCallParseError.self) { try ToolCallFormat.mistral.parse(#"[TOOL_CALLS] [{"name": "x", "arguments": {}]"#) }
        #expect(throws: ToolCallParseError.self) { try ToolCallFormat.mistral.parse(#"[TOOL_CALLS] [{"name": "x", "arguments": {}}"#) }
        #expect(throws: ToolCallParseError.missingName) { try ToolCallFormat.mistral.parse(#"[TOOL_CALLS] [1, 2]"#) }
        #expect(throws: ToolCallParseError.malformedEnvelope("expected [ARGS]")) { try ToolCallFormat.mistralNamed.parse(#"[TOOL_CALLS]get_time{}"#) }
        #expect(throws: ToolCallParseError.missingName) { try ToolCallFormat.mistralNamed.parse(#"[TOOL_CALLS][ARGS]{}"#) }
        #expect(throws: ToolCallParseError.self) { try ToolCallFormat.mistralNamed.parse(#"[TOOL_CALLS]get_time[ARGS]{"a": tru}"#) }
        #expect(throws: ToolCallParseError.self) { try ToolCallFormat.mistralNamed.parse("[TOOL_CALLS]get_time[ARGS]") }
    }

    /// Arbitrary text never crashes a parser: it either parses or throws the typed error.
    @Test func noCrashOnArbitraryText() {
        let fragments = ["<tool_call>", "</tool_call>", "[TOOL_CALLS]", "[ARGS]", "<|python_tag|>", "{", "}", "[", "]",
                         "\"", "\\", "\"name\"", ":", ",", "\"x\"", "{}", " ", "\n", "é", "1e", "null"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            var text = ""
            for _ in 0..<12 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text += fragments[Int(state >> 33) % fragments.count]
            }
            for format in ToolCallFormat.allCases {
                do { _ = try format.parse(text) } catch {}
            }
        }
    }
}
