// Guided generation end to end on SmolLM2: seeded sampling through the schema's token masks.
// The reference is independent of the decoder: Foundation's JSONSerialization parses the raw
// JSON and a validator written here checks every constraint of the schema.
import Foundation
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite(.serialized) struct GuidedGenerationTests {
    static let prompts = (0..<20).map { i in
        ["Describe a pet for a family.", "Invent a pet for a child named Sam.", "Describe an old, calm pet.",
         "Describe a tiny pet.", "Make up a noisy pet."][i % 5] + " (\(i))"
    }

    /// The schema's constraints, checked on the raw JSON independently of the decoder.
    static func validate(_ json: String) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
        #expect(Set(object.keys) == ["name", "species", "age", "weightKilograms", "toys"], "\(json)")
        #expect(object["name"] is String)
        let species = try #require(object["species"] as? String)
        #expect(Species.allCases.map(\.rawValue).contains(species), "\(json)")
        let age = try #require(object["age"] as? NSNumber)
        #expect(Pet.ages.contains(age.intValue) && Double(age.intValue) == age.doubleValue, "\(json)")
        let weight = try #require(object["weightKilograms"] as? NSNumber)
        #expect(Pet.weights.contains(weight.doubleValue), "\(json)")
        let toys = try #require(object["toys"] as? [Any])
        #expect(Pet.toyCounts.contains(toys.count) && toys.allSatisfy { $0 is String }, "\(json)")
    }

    @Test func respondGeneratingParsesAndValidatesOnTwentySeeds() async throws {
        let model = try await SmolLM2.model()
        for (seed, prompt) in Self.prompts.enumerated() {
            let session = LanguageModelSession(model: model)
            let options = GenerationOptions(samplingMode: .random(top: 40, seed: UInt64(seed)), temperature: 0.8,
                                            maximumResponseTokens: 100)
            let response = try await session.respond(to: prompt, generating: Pet.self, options: options)
            try Self.validate(response.rawContent.jsonString)
            #expect(response.rawContent.isComplete)
            #expect(response.usage.output.totalTokenCount <= 100)
            guard case let .response(entry)? = session.transcript.last, case let .structure(segment)? = entry.segments.first else {
                Issue.record("the response entry is not structured")
                continue
            }
            #expect(segment.content == response.rawContent)
        }
    }

    @Test func streamResponseParsesAndValidatesOnTwentySeeds() async throws {
        let model = try await SmolLM2.model()
        for (seed, prompt) in Self.prompts.enumerated() {
            let session = LanguageModelSession(model: model)
            let options = GenerationOptions(samplingMode: .random(top: 40, seed: UInt64(seed)), temperature: 0.8,
                                            maximumResponseTokens: 100)
            var partials = 0, last: LanguageModelSession.ResponseStream<Pet>.Snapshot?
            for try await snapshot in session.streamResponse(to: prompt, generating: Pet.self, options: options) {
                partials += 1
                last = snapshot
            }
            let final = try #require(last)
            #expect(partials > 3)
            #expect(final.rawContent.isComplete)
            try Self.validate(final.rawContent.jsonString)
            _ = try Pet(final.rawContent)
        }
    }

    /// Gemma 3 (SentencePiece, 262k vocabulary, no chat template: the plain format) through the
    /// same schema: a few seeds, each parsed and validated independently.
    @Test func gemmaParsesAndValidates() async throws {
        let url = PerplexityReference.root.appendingPathComponent("Models/gemma-3-270m-q4_k_m.gguf")
        let model = try await LocalLanguageModel(contentsOf: url, configuration: .init(contextSize: 1024, threads: 2))
        for seed in 0..<4 {
            let session = LanguageModelSession(model: model)
            let options = GenerationOptions(samplingMode: .random(top: 40, seed: UInt64(seed)), temperature: 0.8,
                                            maximumResponseTokens: 100)
            let response = try await session.respond(to: Self.prompts[seed], generating: Pet.self, options: options)
            try Self.validate(response.rawContent.jsonString)
        }
    }

    /// A token budget far too small for a free answer still yields a valid document: the
    /// shortest completion is forced when the budget runs out.
    @Test func tinyBudgetStillValidates() async throws {
        let session = LanguageModelSession(model: try await SmolLM2.model())
        let response = try await session.respond(to: "Describe a pet in great detail.", generating: Pet.self,
                                                 options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40))
        try Self.validate(response.rawContent.jsonString)
    }

    /// A guide that cannot be enforced is `unsupportedGenerationGuide`, before any compute.
    @Test func unenforceableGuideIsUnsupported() async throws {
        let schema = GenerationSchema(type: GeneratedContent.self, properties: [
            .init(name: "n", type: Int.self, guides: [.range(5...5), .minimum(9)]),
        ])
        let session = LanguageModelSession(model: try await SmolLM2.model())
        do {
            _ = try await session.respond(to: "Hi", schema: schema)
            Issue.record("accepted")
        } catch let LanguageModelError.unsupportedGenerationGuide(e) {
            #expect(!e.debugDescription.isEmpty)
        }
        #expect(session.transcript.isEmpty)
    }
}
