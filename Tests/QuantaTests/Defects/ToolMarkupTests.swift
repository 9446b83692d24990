// Tool-call markup never reaches `response.content`: it is a tool call or it is not shown.
// The models are designed bigrams (see `ThinkingModel.designedBigram`) whose greedy answer is
// exactly the markup under test, written in the Hermes format that templates without tool
// support are given (as Gemma 3's is).
// Time cap: about 2 s (tiny designed models, a few dozen tokens each).
import DesignedModels
import Foundation
import Synchronization
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

/// `getWeather` with its own call count (`WeatherTool`'s is shared with suites running alongside).
struct CountedWeatherTool: Tool {
    static let calls = Mutex(0)
    let name = "getWeather"
    let description = "Gets the current weather in a city."
    typealias Arguments = WeatherTool.Arguments
    func call(arguments: Arguments) async throws -> String {
        Self.calls.withLock { $0 += 1 }
        return "Sunny in \(arguments.city)."
    }
}

@Suite(.serialized) struct ToolMarkupTests {
    static let specials: [(String, Int32)] = [
        ("<unk>", 2), ("<s>", 3), ("</s>", 3), ("<|user|>", 3), ("<|assistant|>", 3), ("<|system|>", 3), ("<|tool|>", 3),
    ]
    static let template = ThinkingModel.template

    /// A model whose greedy answer after `<|assistant|>` is `pieces` (one token each), then `</s>`.
    static func model(answering pieces: [String]) async throws -> (LocalLanguageModel, URL) {
        let tokens = specials.map(\.0) + pieces + ThinkingModel.byteTokens
        let types = specials.map(\.1) + [Int32](repeating: 1, count: pieces.count) + [Int32](repeating: 6, count: 256)
        let chain = [tokens.firstIndex(of: "<|assistant|>")!] + pieces.indices.map { specials.count + $0 } + [tokens.firstIndex(of: "</s>")!]
        let bytes = ThinkingModel.designedBigram(tokens: tokens, types: types, edges: Array(zip(chain, chain.dropFirst())),
                                                 template: template, bos: 1, eos: 2, addBOS: nil, contextLength: 4096)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("quanta-markup-\(UUID().uuidString).gguf")
        try Data(bytes).write(to: url)
        return (try await LocalLanguageModel(contentsOf: url, configuration: .init(contextSize: 4096, threads: 1)), url)
    }

    static let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 16)

    static func hasMarkup(_ text: String) -> Bool {
        ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"].contains { text.contains($0) }
    }

    /// The filter leaves markup out of the streamed answer whatever the piece boundaries, and
    /// holds a call that follows some text for the caller to parse.
    @Test func filterLeavesMarkupOutOfTheAnswer() {
        let markup = ToolCallFormat.hermes.markup
        let cases: [(text: String, openings: [String], answer: String, isCall: Bool)] = [
            ("Sure.<tool_response>\nsunny\n</tool_response> Done.", ["<tool_call>"], "Sure. Done.", false),
            ("Let me check.\n<tool_call>\n{\"name\": \"f\"}\n</tool_call>", ["<tool_call>"], "Let me check.\n", true),
            ("<tool_call>\n{\"name\": \"f\"}\n</tool_call>", [], "", false),
            ("A</tool_call>B<tool_call>{\"name\"", [], "AB", false),
            ("a < b <tool", [], "a < b <tool", false),
        ]
        for c in cases {
            for split in 1...5 {
                var filter = AnswerFilter(stopSequences: [], callOpenings: c.openings, markup: markup)
                var streamed = ""
                var rest = Substring(c.text)
                while !rest.isEmpty {
                    streamed += filter.push(String(rest.prefix(split))).stream
                    rest = rest.dropFirst(split)
                }
                streamed += filter.finish()
                #expect(streamed == c.answer, "\(c.text.debugDescription) split \(split)")
                #expect(filter.isCall == c.isCall)
                #expect(filter.text == c.text)
            }
        }
    }

    /// A model that calls the tool in every round: after the rounds that may call tools, the last
    /// one offers none, and the call it writes anyway is not the answer.
    @Test func callWrittenWhenNoToolIsOfferedIsNotTheAnswer() async throws {
        CountedWeatherTool.calls.withLock { $0 = 0 }
        let (model, url) = try await Self.model(answering: ["<tool_call>", "{\"name\":▁\"getWeather\",▁\"arguments\":▁{\"city\":▁\"Paris\"}}", "</tool_call>"])
        defer { try? FileManager.default.removeItem(at: url) }
        let session = LanguageModelSession(model: model, tools: [CountedWeatherTool()], instructions: "You are a helpful assistant.")
        let response = try await session.respond(to: "Weather in Paris?", options: Self.options)
        #expect(CountedWeatherTool.calls.withLock { $0 } == LanguageModelSession.maximumToolRounds - 1)
        #expect(!Self.hasMarkup(response.content), "markup in the answer: \(response.content.debugDescription)")
    }

    /// A call of a tool that was not offered is not an answer either.
    @Test func callOfAnUnknownToolIsNotTheAnswer() async throws {
        let (model, url) = try await Self.model(answering: ["<tool_call>", "{\"name\":▁\"getTime\",▁\"arguments\":▁{}}", "</tool_call>"])
        defer { try? FileManager.default.removeItem(at: url) }
        let session = LanguageModelSession(model: model, tools: [CountedWeatherTool()])
        let response = try await session.respond(to: "What time is it?", options: Self.options)
        #expect(!Self.hasMarkup(response.content), "markup in the answer: \(response.content.debugDescription)")
    }

    /// Markup after some prose (here an imagined tool response) is neither streamed nor kept;
    /// the prose is.
    @Test func markupAfterProseIsNotStreamedOrKept() async throws {
        let (model, url) = try await Self.model(answering: ["▁Sure.", "<tool_response>", "▁sunny", "</tool_response>"])
        defer { try? FileManager.default.removeItem(at: url) }
        let session = LanguageModelSession(model: model, tools: [CountedWeatherTool()])
        var streamed: [String] = []
        for try await snapshot in session.streamResponse(to: "Weather in Paris?", options: Self.options) {
            streamed.append(snapshot.content)
        }
        let content = try #require(streamed.last)
        #expect(streamed.allSatisfy { !Self.hasMarkup($0) }, "markup streamed: \(streamed)")
        #expect(content.contains("Sure."))
        guard case let .response(entry)? = session.transcript.last else { Issue.record("no response entry"); return }
        #expect(!Self.hasMarkup(entry.description))
    }
}
