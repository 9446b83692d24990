import DesignedModels
import Foundation
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

/// Reasoning levels through the real Qwen 3 chat template (Tests/TemplatesTests/Fixtures/
/// templates/qwen3.jinja, as Qwen 3 GGUFs carry it) on a designed bigram model with Qwen's
/// special tokens. The template ends the generation prompt with `<|im_start|>assistant\n` when
/// thinking is on and appends an empty think block `<think>\n\n</think>\n\n` when the request
/// turns it off (`enable_thinking = false`). The model follows Qwen 3's habits: after "\n" it
/// opens `<think>`, thinks twenty words and closes it; after "\n\n" (the empty block's end) it
/// answers at once. So every count below is known exactly.
@Suite(.serialized) struct Qwen3ReasoningTests {
    static let specials: [(String, Int32)] = [
        ("<unk>", 2), ("<|endoftext|>", 3), ("<|im_start|>", 3), ("<|im_end|>", 3), ("<think>", 4), ("</think>", 4),
    ]
    /// Normal pieces: the two newline pieces Qwen's template ends with, then the words.
    static var pieces: [String] { ["\n", "\n\n"] + (ThinkingModel.thoughts + ThinkingModel.answer).map { "▁" + $0 } }
    static var tokens: [String] {
        specials.map(\.0) + pieces + ThinkingModel.byteTokens
    }
    static func id(_ token: String) -> Int { tokens.firstIndex(of: token)! }

    static let url: URL = {
        let template = try! String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TemplatesTests/Fixtures/templates/qwen3.jinja"), encoding: .utf8)
        let words = { (list: [String]) in list.map { id("▁" + $0) } }
        let thinking = [id("\n"), id("<think>")] + words(ThinkingModel.thoughts) + [id("</think>")] + words(ThinkingModel.answer) + [id("<|im_end|>")]
        let edges = Array(zip(thinking, thinking.dropFirst())) + [(id("\n\n"), id("▁" + ThinkingModel.answer[0]))]
        let types = specials.map(\.1) + [Int32](repeating: 1, count: pieces.count) + [Int32](repeating: 6, count: 256)
        let bytes = ThinkingModel.designedBigram(tokens: tokens, types: types, edges: edges, template: template,
                                                 bos: id("<|endoftext|>"), eos: id("<|im_end|>"), addBOS: false)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("quanta-qwen3-thinking-\(UUID().uuidString).gguf")
        try! Data(bytes).write(to: url)
        return url
    }()

    let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 32)

    func session() async throws -> LanguageModelSession {
        LanguageModelSession(model: try await LocalLanguageModel(contentsOf: Self.url, configuration: .init(contextSize: 128, threads: 1)))
    }

    /// Thinking on (budgets from the documented mapping with U = 26) and off: the answer is the
    /// same, the reasoning tokens are those the level allows (`<think>` + thoughts + `</think>`),
    /// and with thinking off the prompt carries the template's empty block, so nothing is
    /// generated as reasoning.
    @Test(arguments: [
        (ContextOptions.ReasoningLevel.light, 6), (.moderate, 13), (.deep, 20), (.custom("budget:3"), 3),
    ])
    func levelsBudgetTheThinkBlock(_ level: ContextOptions.ReasoningLevel, thoughts: Int) async throws {
        let session = try await session()
        let response = try await session.respond(to: "hello", options: options, contextOptions: ContextOptions(reasoningLevel: level))
        #expect(response.content == ThinkingModel.text(ThinkingModel.answer[...]))
        #expect(response.usage.output.reasoningTokenCount == thoughts + 2)
        #expect(response.usage.output.totalTokenCount == thoughts + 2 + ThinkingModel.answer.count + 1)
        let reasoning = response.transcriptEntries.compactMap { entry -> String? in
            guard case let .reasoning(r) = entry else { return nil }
            return Transcript.Entry.reasoning(r).plainText
        }
        #expect(reasoning == [ThinkingModel.text(ThinkingModel.thoughts.prefix(thoughts))])
    }

    /// Guided generation on a thinking model: the model thinks first (the level's budget), then
    /// the constrained answer follows the think block and parses as the schema's type; with
    /// thinking off the answer is constrained from the first token.
    @Test(arguments: [(ContextOptions.ReasoningLevel.deep, 20), (.custom("budget:3"), 3), (.custom("none"), -2)])
    func guidedAnswersFollowTheThinkBlock(_ level: ContextOptions.ReasoningLevel, thoughts: Int) async throws {
        let session = try await session()
        let response = try await session.respond(to: "hello", generating: Species.self,
                                                 options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 48),
                                                 contextOptions: ContextOptions(includeSchemaInPrompt: false, reasoningLevel: level))
        #expect(Species.allCases.contains(response.content))
        #expect(response.usage.output.reasoningTokenCount == thoughts + 2)
        let reasoning = response.transcriptEntries.compactMap { entry -> String? in
            guard case let .reasoning(r) = entry else { return nil }
            return Transcript.Entry.reasoning(r).plainText
        }
        #expect(reasoning == (thoughts > 0 ? [ThinkingModel.text(ThinkingModel.thoughts.prefix(thoughts))] : []))
    }

    @Test func thinkingOffUsesTheTemplatesEmptyBlock() async throws {
        let session = try await session()
        let response = try await session.respond(to: "hello", options: options, contextOptions: ContextOptions(reasoningLevel: .custom("none")))
        #expect(response.content == ThinkingModel.text(ThinkingModel.answer[...]))
        #expect(response.usage.output.reasoningTokenCount == 0)
        #expect(response.usage.output.totalTokenCount == ThinkingModel.answer.count + 1)
        // The same request with thinking on counts the template's shorter prompt: the empty block
        // `<think>` "\n\n" `</think>` "\n\n" is four tokens.
        let on = try await self.session().respond(to: "hello", options: options, contextOptions: ContextOptions(reasoningLevel: .deep))
        #expect(response.usage.input.totalTokenCount == on.usage.input.totalTokenCount + 4)
    }
}
