// Runs the FM27 app file's provider side and tool loop through the session.
import Foundation
import Testing
import Quanta

@MainActor struct TravelAppTests {
    /// A plugged-in executor's tool call goes through the session's tool loop: the call, the
    /// tool's output and the final answer land in the transcript, and usage sums both rounds.
    @Test func cannedModelRunsTheToolLoop() async throws {
        let planner = TravelPlanner(model: CannedModel())
        let answer = try await planner.chat("Which museums?")
        #expect(answer == "Bonjour")
        let kinds = planner.session.transcript.map { entry -> String in
            switch entry {
            case .instructions: "instructions"
            case .prompt: "prompt"
            case .toolCalls: "toolCalls"
            case .toolOutput: "toolOutput"
            case .response: "response"
            case .reasoning: "reasoning"
            }
        }
        #expect(kinds == ["instructions", "prompt", "toolCalls", "toolOutput", "response"])
        guard case let .toolOutput(output)? = planner.session.transcript.dropLast().last else { throw CancellationError() }
        #expect(output.segments.map(\.description).joined().contains("Louvre"))
        #expect(planner.session.usage.input.totalTokenCount == 20 && planner.session.usage.input.cachedTokenCount == 8)
        planner.editTranscript()
        #expect(planner.log.contains("Edited."))
        #expect(planner.log.contains("findMuseums({\"city\":\"Paris\"})"))
    }

    /// The profile-based concierge plans through the tool loop: the planning branch activates,
    /// its history keeps the whole turn, and the session returns to chatting afterwards.
    @Test func conciergeProfileRunsTheToolLoop() async throws {
        let concierge = Concierge(model: CannedModel())
        #expect(try await concierge.plan(city: "Paris") == "Bonjour")
        #expect(concierge.stats.activations == 1)
        #expect(concierge.turns == 4)
        #expect(!concierge.session.properties.isPlanning)
        #expect(concierge.session.properties.tripCity == "Paris")
    }

    /// The assistant on the system model reports what `SystemLanguageModel.default` reports.
    @Test func quickAssistantFollowsTheSystemModel() async throws {
        let assistant = QuickAssistant()
        #expect(assistant.status == (SystemLanguageModel.default.isAvailable ? "ready" : "downloading"))
        if !SystemLanguageModel.default.isAvailable {
            #expect(try await assistant.ask("Hello?") == "downloading")
        }
    }

    /// Errors read as sentences on Linux too, not "The operation could not be completed".
    @Test func errorsHaveReadableDescriptions() {
        let errors: [any Error] = [
            LanguageModelError.contextSizeExceeded(.init(contextSize: 8, tokenCount: 9, debugDescription: "9 > 8")),
            LanguageModelError.timeout(.init(debugDescription: "took 30 s")),
            LanguageModelSession.Error.concurrentRequests,
        ]
        for error in errors {
            #expect(!error.localizedDescription.contains("could not be completed"), "\(error.localizedDescription)")
        }
        #expect(errors[0].localizedDescription.contains("9 > 8"))
    }
}

@MainActor struct FeedbackTests {
    /// A feedback record is JSON holding the sentiment, the issues and the transcript.
    @Test func feedbackAttachmentIsJSON() throws {
        let session = LanguageModelSession(model: CannedModel(), instructions: "Be brief.")
        let data = session.logFeedbackAttachment(sentiment: .negative, issues: [.init(category: .tooVerbose, explanation: "long")],
                                                 desiredResponseText: "Short.")
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["sentiment"] as? String == "negative")
        #expect((object["issues"] as? [[String: String]])?.first?["category"] == "tooVerbose")
        #expect((object["transcript"] as? [Any])?.count == 1)
        #expect(String(decoding: data, as: UTF8.self).contains("Short."))
    }
}

struct TravelAppSchemaTests {
    /// The app's `@Generable` types have the schemas their hand-written conformances had
    /// (recorded in SchemaFixtures before the app used the macros).
    @Test func schemasEqualTheHandWrittenOnes() throws {
        let types: [(String, any Generable.Type)] = [
            ("Pace", Pace.self), ("Activity", Activity.self), ("Itinerary", Itinerary.self), ("FindMuseumsArguments", FindMuseums.Arguments.self),
        ]
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("SchemaFixtures")
        for (name, type) in types {
            let recorded = try String(contentsOf: fixtures.appendingPathComponent("\(name).json"), encoding: .utf8)
            let written = try JSONDecoder().decode(GenerationSchema.self, from: Data(recorded.utf8))
            // Compared through the public Codable form: decode the fixture, encode both alike.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            #expect(try encoder.encode(type.generationSchema) == encoder.encode(written), "\(name)")
        }
    }
}
