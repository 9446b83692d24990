// A tool call's arguments on their one path, from the model's text to the transcript's
// `GeneratedContent`: the parser hands on the model's own bytes, the executor channel carries
// them, the session's collector reads them once. Escapes, non-ASCII and astral characters,
// nesting, numbers and key order arrive as the model wrote them, in every call format.
// Time cap: 1 s (no model).
import Testing
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite struct ToolArgumentsPathTests {
    /// Arguments with every JSON escape, characters written escaped and raw (é, 中, 😀 as a
    /// surrogate pair), numbers in four spellings, nesting four deep, empty containers.
    static let arguments = #"{"text": "a\nb\t\"q\" \\ \/ \b\f\r \u00e9\u4e2d\ud83d\ude00 é中😀", "#
        + #""nested": {"list": [1, -2.5, 3e2, 0.125, true, false, null, {"deep": ["x", []]}], "empty": {}}, "z": "", "a": 7}"#

    /// The same value decoded by hand from the JSON text above (the reference).
    static let expected: GeneratedContent = {
        func object(_ members: [(String, GeneratedContent)]) -> GeneratedContent {
            GeneratedContent(kind: .structure(properties: Dictionary(uniqueKeysWithValues: members), orderedKeys: members.map(\.0)))
        }
        func number(_ value: Double) -> GeneratedContent { GeneratedContent(kind: .number(value)) }
        func string(_ value: String) -> GeneratedContent { GeneratedContent(kind: .string(value)) }
        let list = GeneratedContent(kind: .array([
            number(1), number(-2.5), number(300), number(0.125), GeneratedContent(kind: .bool(true)), GeneratedContent(kind: .bool(false)),
            GeneratedContent(kind: .null), object([("deep", GeneratedContent(kind: .array([string("x"), GeneratedContent(kind: .array([]))])))]),
        ]))
        return object([
            ("text", string("a\u{0A}b\u{09}\u{22}q\u{22} \u{5C} / \u{08}\u{0C}\u{0D} \u{E9}\u{4E2D}\u{1F600} \u{E9}\u{4E2D}\u{1F600}")),
            ("nested", object([("list", list), ("empty", object([]))])),
            ("z", string("")),
            ("a", number(7)),
        ])
    }()

    /// One call of `search` with `arguments` in each format as a model writes it; the arguments
    /// as a JSON string too, as some models write them.
    static let answers: [(format: ToolCallFormat, text: String)] = [
        (.hermes, "<tool_call>\n{\"name\": \"search\", \"arguments\": \(arguments)}\n</tool_call>"),
        (.hermes, "<tool_call>\n{\"name\": \"search\", \"arguments\": \(JSONStringLiteral.of(arguments))}\n</tool_call>"),
        (.llama3, "{\"name\": \"search\", \"parameters\": \(arguments)}"),
        (.llama3, "<|python_tag|>{\"type\": \"function\", \"function\": {\"name\": \"search\", \"arguments\": \(arguments)}}"),
        (.mistral, "[TOOL_CALLS] [{\"name\": \"search\", \"arguments\": \(arguments)}]"),
        (.mistralNamed, "[TOOL_CALLS]search[ARGS]\(arguments)"),
    ]

    @Test(arguments: ToolArgumentsPathTests.answers.indices)
    func argumentsArriveIntact(answer: Int) throws {
        let (format, text) = Self.answers[answer]
        let calls = try format.parse(text).calls
        try #require(calls.count == 1)
        #expect(calls[0].name == "search")
        // The model's bytes, not a rewrite of them.
        #expect(calls[0].argumentsJSON == Self.arguments, "\(format)")

        // As the executor sends them and the session collects them.
        var collector = ResponseCollector()
        collector.apply(.toolCalls(action: .toolCall(id: "call_1", name: "search",
                                                     action: .appendArguments(calls[0].argumentsJSON, tokenCount: 1))))
        guard case let .toolCalls(entry)? = collector.toolCallsEntry() else {
            Issue.record("no tool-calls entry")
            return
        }
        #expect(entry.count == 1 && entry[0].toolName == "search" && entry[0].id == "call_1")
        #expect(entry[0].arguments == Self.expected, "\(format): \(entry[0].arguments.jsonString)")
        #expect(entry[0].arguments.isComplete)
    }
}

/// A JSON string literal written by hand for the test (quote, backslash and the controls the
/// arguments hold), so the string-encoded case does not lean on the package's own escaper.
private enum JSONStringLiteral {
    static func of(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
