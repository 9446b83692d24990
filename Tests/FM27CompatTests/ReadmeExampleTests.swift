// Keeps README.md's Swift example and ReadmeExample.swift equal, and runs the example.
import Foundation
import Testing
import Quanta

struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let modelFile = root.appendingPathComponent("Models/SmolLM2-135M-Instruct.Q4_1.gguf")

    /// README.md holds, as one ```swift block, exactly the lines of ReadmeExample.swift between
    /// its "README example begins" and "README example ends" markers.
    @Test func readmeHoldsTheExampleVerbatim() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("ReadmeExample.swift"), encoding: .utf8)
        let afterBegin = try #require(source.components(separatedBy: "// README example begins\n").dropFirst().first)
        let example = try #require(afterBegin.components(separatedBy: "// README example ends").first)
        #expect(example.contains("@Generable") && example.contains("respond(to:") && example.contains("streamResponse"))
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let holdsExample = readme.contains("```swift\n" + example + "```\n")
        #expect(holdsExample, "README.md's Swift example differs from Tests/FM27CompatTests/ReadmeExample.swift; copy the file's lines between the markers into README.md")
    }

    /// The example runs on the default model: the guided answer obeys the guides.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: ReadmeExampleTests.modelFile.path)))
    func exampleRuns() async throws {
        let dish = try await suggestDinner(modelFile: Self.modelFile)
        #expect((5...90).contains(dish.minutes))
        #expect((2...6).contains(dish.ingredients.count))
    }
}
