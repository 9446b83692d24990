import Grammar
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta
import Templates

/// The `.required` grammars admit exactly the texts the parsers read.
@Suite struct ToolCallEnvelopeTests {
    static let weatherArguments = JSONShape.object(properties: [
        JSONProperty(name: "city", shape: .string(.any)),
        JSONProperty(name: "unit", shape: .string(.choices(["celsius", "fahrenheit"])), isOptional: true),
    ])
    static let tools = [
        ToolCallShape(name: "get_weather", argumentsShape: weatherArguments),
        ToolCallShape(name: "get_time", argumentsShape: .object(properties: [])),
        ToolCallShape(name: "plan", argumentsShape: .object(properties: [
            JSONProperty(name: "steps", shape: .array(items: .reference("Step"), minimumCount: 2, maximumCount: 4)),
            JSONProperty(name: "budget", shape: .number(minimum: 0.5, maximum: nil)),
            JSONProperty(name: "done", shape: .anyOf([.boolean, .null])),
        ])),
    ]
    static let definitions: [String: JSONShape] = [
        "Step": .object(properties: [JSONProperty(name: "n", shape: .integer(minimum: 1, maximum: 9)),
                                     JSONProperty(name: "what", shape: .string(.any))]),
    ]

    /// The example document the grammar admits for each tool: prefix, the root value taken
    /// along that tool's branch, suffix (JSON printed as the templates print it).
    static func document(_ grammar: JSONGrammar, tool: String) -> String {
        func branch(_ shape: JSONShape) -> JSONShape {
            switch shape {
            case let .anyOf(calls):
                return calls.first {
                    guard case let .object(properties) = $0 else { return false }
                    return properties.first?.shape == .string(.choices([tool]))
                }!
            case let .array(items, minimumCount, maximumCount):
                return .array(items: branch(items), minimumCount: minimumCount, maximumCount: maximumCount)
            default: return shape
            }
        }
        let value = ShapeExamples.example(of: branch(grammar.root), definitions: grammar.definitions)
        return grammar.prefix + value.jsonString() + grammar.suffix
    }

    @Test(arguments: ToolCallFormat.allCases)
    func everyToolRoundTrips(format: ToolCallFormat) throws {
        let tools = format == .mistralNamed ? [Self.tools[2]] : Self.tools
        let grammar = try format.requiredCallGrammar(for: tools, definitions: Self.definitions)
        for tool in tools {
            let text = Self.document(grammar, tool: tool.name)
            let parsed = try format.parse(text)
            let expected = ShapeExamples.example(of: tool.argumentsShape, definitions: Self.definitions)
            #expect(parsed == ParsedToolOutput(text: "", calls: [ParsedToolCall(name: tool.name, argumentsJSON: expected.jsonString())],
                                               trailingText: ""), "\(format) \(tool.name): \(text)")
            #expect(ShapeExamples.conforms(try parseJSON(parsed.calls[0].argumentsJSON), to: tool.argumentsShape,
                                           definitions: Self.definitions))
        }
    }

    @Test func envelopes() throws {
        let hermes = try ToolCallFormat.hermes.requiredCallGrammar(for: Self.tools)
        #expect(hermes.prefix == "<tool_call>\n" && hermes.suffix == "\n</tool_call>")
        #expect(Self.document(hermes, tool: "get_time") == "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>")
        let single = try ToolCallFormat.llama3.requiredCallGrammar(for: [Self.tools[1]])
        #expect(single == JSONGrammar(root: .object(properties: [
            JSONProperty(name: "name", shape: .string(.choices(["get_time"]))),
            JSONProperty(name: "parameters", shape: .object(properties: [])),
        ])))
        let mistral = try ToolCallFormat.mistral.requiredCallGrammar(for: Self.tools)
        #expect(mistral.prefix == "[TOOL_CALLS] " && mistral.suffix.isEmpty)
        guard case let .array(_, minimumCount, maximumCount) = mistral.root else { Issue.record("not an array"); return }
        #expect(minimumCount == 1 && maximumCount == 1)
        let named = try ToolCallFormat.mistralNamed.requiredCallGrammar(for: [Self.tools[0]])
        #expect(named == JSONGrammar(prefix: "[TOOL_CALLS]get_weather[ARGS]", root: Self.weatherArguments))
    }

    @Test func envelopeErrors() {
        for format in ToolCallFormat.allCases {
            #expect(throws: ToolCallEnvelopeError.noTools) { try format.requiredCallGrammar(for: []) }
        }
        #expect(throws: ToolCallEnvelopeError.namedFormatNeedsOneTool(count: 3)) {
            try ToolCallFormat.mistralNamed.requiredCallGrammar(for: Self.tools)
        }
    }

    /// The calls the templates write into history are documents the grammars admit, byte for
    /// byte (Qwen 2.5 for Hermes, Llama 3); so the model is held to the format it was shown.
    @Test func templateHistoryCallsAreAdmitted() throws {
        let weather = ToolCallShape(name: "get_weather", argumentsShape: Self.weatherArguments)
        for (name, format) in [("qwen2.5", ToolCallFormat.hermes), ("llama3", .llama3)] {
            let history = try ToolFixtures.render(name, scenario: "single").text
            let grammar = try format.requiredCallGrammar(for: [weather, Self.tools[1]])
            let call: TemplateValue = ["name": "get_weather",
                                       format == .llama3 ? "parameters" : "arguments": ["city": "Zürich", "unit": "celsius"]]
            #expect(ShapeExamples.conforms(call, to: grammar.root))
            let text = grammar.prefix + call.jsonString() + grammar.suffix
            #expect(history.contains(text), "\(name)")
            #expect(try format.parse(text).calls == [ParsedToolCall(name: "get_weather", argumentsJSON: #"{"city": "Zürich", "unit": "celsius"}"#)])
        }
    }
}
