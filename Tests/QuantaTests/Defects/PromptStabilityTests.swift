// The prompt a request renders is the same bytes in every process: a tool's parameter schema
// used to go through `JSONEncoder`, whose key order follows the per-process hash seed, so greedy
// output with tools changed from run to run.
// Time cap: about 5 s on two cores (two child processes that load SmolLM2 and render once).
import Foundation
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite(.serialized) struct PromptStabilityTests {
    /// The environment variable that makes `renderForParentProcess` write its rendering.
    static let outputVariable = "QUANTA_PROMPT_STABILITY_OUTPUT"

    /// A tool whose properties are declared out of alphabetical order, one of them an object.
    static var transcript: [Transcript.Entry] {
        let place = DynamicGenerationSchema(name: "Place", properties: [
            .init(name: "region", schema: .init(type: String.self)),
            .init(name: "country", schema: .init(type: String.self)),
            .init(name: "city", schema: .init(type: String.self)),
        ])
        let forecast = DynamicGenerationSchema(name: "Forecast", description: "What to forecast", properties: [
            .init(name: "where", description: "The place", schema: place),
            .init(name: "days", schema: .init(type: Int.self)),
            .init(name: "units", schema: .init(name: "Units", anyOf: ["metric", "imperial"])),
            .init(name: "hourly", schema: .init(type: Bool.self), isOptional: true),
            .init(name: "alerts", schema: .init(arrayOf: .init(type: String.self))),
            .init(name: "language", schema: .init(type: String.self), isOptional: true),
        ])
        let tool = Transcript.ToolDefinition(name: "forecast", description: "Forecasts the weather.",
                                             parameters: try! GenerationSchema(root: forecast, dependencies: []))
        return [.instructions(.init(segments: [.text("You are a helpful assistant.")], toolDefinitions: [tool])),
                SmolLM2.prompt("Weather in Oslo?")]
    }

    static func render() async throws -> String {
        try await SmolLM2.model().loaded.render(transcript).text
    }

    /// Not a check: when a parent test runs this test binary with `outputVariable` set, this
    /// writes the rendered prompt to that file.
    @Test func renderForParentProcess() async throws {
        guard let path = ProcessInfo.processInfo.environment[Self.outputVariable] else { return }
        try Data(try await Self.render().utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Two processes (each with its own hash seed) and this one render the same bytes, and the
    /// schema lists the properties in declaration order.
    @Test func toolPromptIsTheSameInEveryProcess() async throws {
        let here = try await Self.render()
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var renderings: [String] = []
        for child in 0..<2 {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("quanta-prompt-\(UUID().uuidString).txt")
            defer { try? FileManager.default.removeItem(at: output) }
            let process = Process()
            process.executableURL = binary
            process.arguments = ["--testing-library", "swift-testing", "--filter", "renderForParentProcess"]
            process.environment = ProcessInfo.processInfo.environment.merging([Self.outputVariable: output.path]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "child \(child)")
            renderings.append(try String(contentsOf: output, encoding: .utf8))
        }
        #expect(renderings[0] == here, "child 0 rendered other bytes:\n\(renderings[0])\n--- this process:\n\(here)")
        #expect(renderings[1] == here, "child 1 rendered other bytes:\n\(renderings[1])\n--- this process:\n\(here)")
        // Declaration order, not sorted and not hash order (`"name": ` is a key; in the
        // `required` and `x-order` lists a name is followed by a comma or a bracket).
        let order = ["where", "days", "units", "hourly", "alerts", "language"].map { here.range(of: "\"\($0)\": ")?.lowerBound }
        #expect(order.allSatisfy { $0 != nil } && zip(order, order.dropFirst()).allSatisfy { $0! < $1! },
                "properties out of declaration order in:\n\(here)")
        let nested = ["region", "country", "city"].map { here.range(of: "\"\($0)\": ")?.lowerBound }
        #expect(nested.allSatisfy { $0 != nil } && zip(nested, nested.dropFirst()).allSatisfy { $0! < $1! })
    }
}
