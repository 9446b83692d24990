// The tool loop end to end on SmolLM2: a required call constrained to the tool's schema, the
// tool's output, the final answer, and the KV cache reused across the rounds.
import Foundation
import Synchronization
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

/// A tool that records the arguments it was called with.
struct WeatherTool: Tool {
    static let calls = Mutex<[String]>([])
    let name = "getWeather"
    let description = "Gets the current weather in a city."

    @Generable struct Arguments {
        @Guide(description: "The city") var city: String
    }

    func call(arguments: Arguments) async throws -> String {
        Self.calls.withLock { $0.append(arguments.city) }
        return "Sunny and 21 °C in \(arguments.city)."
    }
}

/// A tool that always fails.
struct BrokenTool: Tool {
    let name = "getWeather"
    let description = "Gets the current weather in a city."
    typealias Arguments = WeatherTool.Arguments
    struct Outage: Error {}
    func call(arguments: Arguments) async throws -> String { throw Outage() }
}

@Suite(.serialized) struct ToolLoopTests {
    @Test func requiredCallRoundTrip() async throws {
        WeatherTool.calls.withLock { $0.removeAll() }
        let session = LanguageModelSession(model: try await SmolLM2.model(), tools: [WeatherTool()],
                                           instructions: "You are a helpful assistant.")
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 60, toolCallingMode: .required)
        let response = try await session.respond(to: "What is the weather like in Paris today?", options: options)

        let entries = Array(session.transcript)
        guard entries.count == 5, case .instructions = entries[0], case .prompt = entries[1],
              case let .toolCalls(calls) = entries[2], case let .toolOutput(output) = entries[3], case .response = entries[4] else {
            Issue.record("unexpected transcript: \(entries)")
            return
        }
        // The call is one valid call of the tool, decoded into its arguments, and the tool ran once.
        #expect(calls.count == 1 && calls[0].toolName == "getWeather")
        let city: String = try calls[0].arguments.value(forProperty: "city")
        #expect(WeatherTool.calls.withLock { $0 } == [city])
        #expect(output.id == calls[0].id && output.description.contains("21 °C"))
        #expect(!response.content.isEmpty)
        #expect(Array(response.transcriptEntries) == Array(entries.dropFirst()))
        // The second round found the first round's prompt in the cache (the first had nothing).
        #expect(response.usage.input.cachedTokenCount > 0)
        #expect(response.usage.input.totalTokenCount > response.usage.input.cachedTokenCount)
        #expect(session.usage == response.usage)
    }

    /// A tool that throws fails the request with `ToolCallError`, naming the tool.
    @Test func toolErrorsSurfaceAsToolCallError() async throws {
        let session = LanguageModelSession(model: try await SmolLM2.model(), tools: [BrokenTool()])
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40, toolCallingMode: .required)
        do {
            _ = try await session.respond(to: "Weather in Oslo?", options: options)
            Issue.record("the failing tool did not fail the request")
        } catch let error as LanguageModelSession.ToolCallError {
            #expect(error.tool.name == "getWeather")
            #expect(error.underlyingError is BrokenTool.Outage)
        }
        #expect(!session.isResponding)
        #expect(session.transcript.count == 1)   // only the instructions entry with the tool list
    }

    /// `.disallowed` offers no tools: the model answers in text and nothing is called.
    @Test func disallowedOffersNoTools() async throws {
        WeatherTool.calls.withLock { $0.removeAll() }
        let session = LanguageModelSession(model: try await SmolLM2.model(), tools: [WeatherTool()])
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 20, toolCallingMode: .disallowed)
        let response = try await session.respond(to: "What is the weather like in Paris?", options: options)
        #expect(WeatherTool.calls.withLock { $0 }.isEmpty)
        #expect(session.transcript.count == 3)   // instructions (the tool list), prompt, response
        #expect(!response.content.contains("<tool_call>"))
    }
}
