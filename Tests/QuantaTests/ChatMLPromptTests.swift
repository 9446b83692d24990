import Foundation
import Testing
import GGUF
import Templates
import Tokenizers

/// The chat template and the tokenizer together against llama.cpp: SmolLM2's own template,
/// rendered by our Jinja interpreter and tokenized with parse-special on, gives exactly the ChatML
/// prompt ids llama.cpp produced for the same conversation (greedy-dev prompt 0).
@Suite struct ChatMLPromptTests {
    struct Record: Decodable { let model: String; let prompt_index: Int; let prompt: String; let prompt_ids: [Int32] }

    @Test func smolLM2TemplateTokenizesToLlamaCppIds() throws {
        let root = PerplexityReference.root
        let lines = try String(contentsOf: root.appendingPathComponent("Tests/ArchitecturesTests/Fixtures/greedy-dev.jsonl"), encoding: .utf8)
        let record = try #require(try lines.split(separator: "\n")
            .map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
            .first { $0.model == "smollm" && $0.prompt_index == 0 })

        let file = try GGUFFile(path: PerplexityReference.modelPath("smollm"))
        let template = try ChatTemplate(source: try file.string("tokenizer.chat_template"))
        let tokenizer = try loadTokenizer(from: file)
        let rendered = try template.render(messages: [
            ChatMessage(role: "system", content: "You are a helpful AI assistant named SmolLM, trained by Hugging Face"),
            ChatMessage(role: "user", content: "List three simple ways to save energy at home."),
        ], addGenerationPrompt: true, bosToken: tokenizer.piece(tokenizer.bosID!), eosToken: tokenizer.piece(tokenizer.eosID!))
        #expect(rendered == record.prompt)
        #expect(tokenizer.encode(rendered, addSpecial: true, parseSpecial: true) == record.prompt_ids)
    }
}
