import Foundation
import Testing
import Quanta

/// The README's "Swift API" example, verbatim between the markers below (the test checks that
/// it still matches README.md), run from the repository root so its relative path resolves.
@Suite(.serialized) struct ReadmeExampleTests {
    @Test func readmeExampleRuns() async throws {
        #expect(FileManager.default.changeCurrentDirectoryPath(PerplexityReference.root.path))
        // README example begins
        let url = URL(fileURLWithPath: "Models/SmolLM2-135M-Instruct.Q4_1.gguf")
        let model = try await LocalLanguageModel(contentsOf: url)
        let session = LanguageModelSession(model: model, instructions: "You are a helpful assistant. Answer briefly.")
        let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 32)

        let answer = try await session.respond(to: "What is the capital of France?", options: options)
        print(answer.content)
        print("input \(answer.usage.input.totalTokenCount), cached \(answer.usage.input.cachedTokenCount)")

        // The second turn reuses the first one's KV cache; snapshots carry cumulative content and usage.
        for try await snapshot in session.streamResponse(to: "And of Italy?", options: options) {
            print(snapshot.content, snapshot.usage.output.totalTokenCount)
        }
        // README example ends
        #expect(!answer.content.isEmpty)
        #expect(session.transcript.count == 5)
        #expect(session.usage.input.cachedTokenCount > 0)
    }

    @Test func readmeMatchesThisTest() throws {
        let readme = try String(contentsOf: PerplexityReference.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Swift API").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
        let readmeBody = block.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("import ") }.map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let test = try #require(source.components(separatedBy: "// README example begins\n").dropFirst().first?
            .components(separatedBy: "// README example ends").first)
        let testBody = test.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(readmeBody == testBody)
    }
}
