import Foundation
import Testing
@testable import Templates

/// Real chat templates (SmolLM2, Gemma 3, Llama 3.x, Qwen 2.5, Qwen 3, Mistral v0.3, Phi-3) over
/// a set of conversations, compared byte for byte with Python jinja2 configured as Hugging Face
/// configures it.
@Suite struct ModelTemplateTests {
    @Test func matrixMatchesJinja2() throws {
        let cases = try Fixtures.json("cases.json")
        #expect(cases.count > 100)
        var templates: [String: ChatTemplate] = [:]
        // template -> conversation -> (passed, total)
        var matrix: [String: [String: (Int, Int)]] = [:]
        var conversations: [String] = []
        var failures: [String] = []
        for c in cases {
            let name = c["template"]!.stringValue!
            let conversation = c["conversation"]!.stringValue!
            if !conversations.contains(conversation) { conversations.append(conversation) }
            if templates[name] == nil { templates[name] = try Fixtures.template(name) }
            let template = templates[name]!
            guard case let .object(context) = c["context"]! else { continue }
            let expected = Outcome(expected: c)
            let got = Outcome { () throws(TemplateError) -> String in try template.render(context: context) }
            var cell = matrix[name, default: [:]][conversation, default: (0, 0)]
            cell.1 += 1
            if got == expected {
                cell.0 += 1
            } else {
                failures.append("\(name) × \(conversation) (add_generation_prompt: \(c["add_generation_prompt"]!)):\n  expected \(expected)\n  got      \(got)")
            }
            matrix[name, default: [:]][conversation] = cell
        }
        print(Self.table(matrix, conversations: conversations))
        for f in failures { Issue.record(Comment(rawValue: f)) }
        #expect(failures.isEmpty)
    }

    /// The conversation-based API builds the same context HF does, so it renders the same bytes.
    @Test func chatMessageAPIMatchesFixtures() throws {
        let template = try Fixtures.template("qwen3")
        let messages = [
            ChatMessage(role: "system", content: "You are a concise assistant."),
            ChatMessage(role: "user", content: "Hello! Who are you?"),
            ChatMessage(role: "assistant", content: "<think>\nThe user greets me.\n</think>\n\nHi! I'm an assistant."),
            ChatMessage(role: "user", content: "Name three primes."),
            ChatMessage(role: "assistant", content: "2, 3, 5.", extra: TemplateObject([("reasoning_content", "Smallest primes.")])),
        ]
        let rendered = try template.render(messages: messages, addGenerationPrompt: true, bosToken: "<|endoftext|>",
                                           eosToken: "<|im_end|>", extra: ["enable_thinking": false])
        let fixture = try Fixtures.json("cases.json").first {
            $0["template"] == "qwen3" && $0["conversation"] == "thinking-disabled" && $0["add_generation_prompt"] == true
        }
        #expect(rendered == fixture?["expected"]?.stringValue)
    }

    static func table(_ matrix: [String: [String: (Int, Int)]], conversations: [String]) -> String {
        let order = ["smollm2", "gemma3", "llama3", "qwen2.5", "qwen3", "mistral-v0.3", "phi3", "deepseek-r1-distill", "hermes3-tool-use", "granite-3.3"]
        var lines = ["template × conversation (passed/rendered; each conversation with add_generation_prompt on and off)"]
        lines.append("| template | " + conversations.joined(separator: " | ") + " | total |")
        lines.append("|---" + String(repeating: "|---", count: conversations.count + 1) + "|")
        var grandPassed = 0, grandTotal = 0
        for name in order + matrix.keys.filter({ !order.contains($0) }).sorted() {
            guard let row = matrix[name] else { continue }
            var passed = 0, total = 0
            let cells = conversations.map { conversation -> String in
                guard let (p, t) = row[conversation] else { return "–" }
                passed += p
                total += t
                return "\(p)/\(t)"
            }
            grandPassed += passed
            grandTotal += total
            lines.append("| \(name) | " + cells.joined(separator: " | ") + " | \(passed)/\(total) |")
        }
        lines.append("all: \(grandPassed)/\(grandTotal) passed")
        return lines.joined(separator: "\n")
    }
}
