import Foundation
import GGUF
import Testing
@testable import Templates

@Suite struct APITests {
    @Test func plainFormatForModelsWithoutATemplate() throws {
        let prompt = try ChatTemplate.plain.render(
            messages: [ChatMessage(role: "system", content: "Be brief."), ChatMessage(role: "user", content: " Hi \n")],
            addGenerationPrompt: true, bosToken: "<bos>")
        #expect(prompt == "<bos>System: Be brief.\n\nUser: Hi\n\nAssistant:")
        let noPrompt = try ChatTemplate.plain.render(messages: [ChatMessage(role: "user", content: "Hi")], addGenerationPrompt: false)
        #expect(noPrompt == "User: Hi\n\n")
    }

    @Test func messagesKeepExtraFieldsInOrder() {
        let m = ChatMessage(role: "assistant", content: "", extra: TemplateObject([("tool_calls", [["id": "a"]]), ("name", "x")]))
        #expect(m.templateValue.jsonString() == #"{"role": "assistant", "content": "", "tool_calls": [{"id": "a"}], "name": "x"}"#)
    }

    @Test func toolsAreNoneWhenAbsent() throws {
        let t = try ChatTemplate(source: "{{ tools is none }}|{{ tools is defined }}|{{ enable_thinking }}")
        #expect(try t.render(messages: [ChatMessage](), extra: ["enable_thinking": false]) == "True|True|False")
    }

    /// The SmolLM2 template committed as a fixture is the one in our GGUF (skipped when the
    /// model is not fetched).
    @Test func smolLM2TemplateComesFromTheGGUF() throws {
        let path = Fixtures.modelsDirectory.appendingPathComponent("SmolLM2-135M-Instruct.Q4_1.gguf").path
        guard FileManager.default.fileExists(atPath: path) else { return }
        let file = try GGUFFile(path: path)
        let source = try file.string("tokenizer.chat_template")
        #expect(source == (try Fixtures.text("templates/smollm2.jinja")))
        let bos = try file.strings("tokenizer.ggml.tokens")[try file.int("tokenizer.ggml.bos_token_id")]
        #expect(bos == "<|im_start|>")
        let prompt = try ChatTemplate(source: source).render(messages: [ChatMessage(role: "user", content: "Hi")])
        #expect(prompt == "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")
    }
}
