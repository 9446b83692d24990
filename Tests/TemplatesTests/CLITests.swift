import Foundation
import Testing

/// `quanta template` end to end, when the release binary has been built next to the tests
/// (`swift build -c release --build-tests` builds it); skipped otherwise.
@Suite struct CLITests {
    static let binary = Fixtures.modelsDirectory.deletingLastPathComponent().appendingPathComponent(".build/release/quanta")

    private func run(_ arguments: [String], stdin: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["template"] + arguments
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test func rendersExactlyWithoutATrailingNewline() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else { return }
        let template = Fixtures.directory.appendingPathComponent("templates/qwen3.jinja").path
        let r = try run(["--template", template], stdin: #"{"messages": [{"role": "user", "content": "Hi"}], "enable_thinking": false}"#)
        #expect(r.status == 0)
        #expect(r.stdout == "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n")
        let bare = try run(["--template", template, "--no-generation-prompt"], stdin: #"[{"role": "user", "content": "Hi"}]"#)
        #expect(bare.stdout == "<|im_start|>user\nHi<|im_end|>\n")
    }

    @Test func usesTheModelsTemplateAndTokens() throws {
        let model = Fixtures.modelsDirectory.appendingPathComponent("SmolLM2-135M-Instruct.Q4_1.gguf").path
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path), FileManager.default.fileExists(atPath: model) else { return }
        let r = try run(["--model", model], stdin: #"[{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]"#)
        #expect(r.stdout == "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n")
    }

    @Test func renderErrorsAreOneLineAndExitOne() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else { return }
        let template = Fixtures.directory.appendingPathComponent("templates/gemma3.jinja").path
        let r = try run(["--template", template], stdin: #"[{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]"#)
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "quanta: error: template raised: Conversation roles must alternate user/assistant/user/assistant/...\n")
        let bad = try run([], stdin: "{not json")
        #expect(bad.status == 1 && bad.stderr.hasPrefix("quanta: error: invalid input: JSON"))
    }
}
