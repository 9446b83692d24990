// What a profile session sends: instructions, tools, option overrides, history transform and
// model, checked on the requests a recording model receives.
import Foundation
import Quanta
import Testing

@Suite struct ProfileRequestTests {
    @Test func instructionsAndToolsComeFromTheProfile() async throws {
        let model = ScriptedModel()
        let session = LanguageModelSession(profile: LanguageModelSession.Profile {
            Instructions {
                "You are a guide."
                "Be brief."
            }
            Lookup()
        }.model(model))
        _ = try await session.respond(to: "Hi")

        // The same instructions given statically: the profile must send the same text.
        let reference = ScriptedModel()
        _ = try await LanguageModelSession(model: reference, tools: [Lookup()]) {
            "You are a guide."
            "Be brief."
        }.respond(to: "Hi")

        let sent = try #require(model.log.requests.first)
        #expect(sent.instructionsText == reference.log.requests.first?.instructionsText)
        #expect(sent.enabledToolDefinitions.map(\.name) == [Lookup().name])
        guard case let .instructions(entry)? = sent.transcript.first else { Issue.record("no instructions"); return }
        #expect(entry.toolDefinitions.map(\.name) == [Lookup().name])
        // The profile's instructions are not stored: the transcript is the conversation.
        #expect(session.transcript.count == 2)
    }

    @Test func toolArraysAndConditionalsInInstructions() async throws {
        let model = ScriptedModel()
        let tools: [any Tool] = [Lookup()]
        let withTools = true
        let session = LanguageModelSession(model: model, dynamicInstructions: Instructions("Plain."))
        _ = try await session.respond(to: "Hi")
        let other = LanguageModelSession(profile: LanguageModelSession.Profile {
            if withTools { tools } else { Instructions("Never.") }
            Instructions("After.")
        }.model(model))
        _ = try await other.respond(to: "Hi")
        #expect(model.log.requests[0].instructionsText == "Plain.")
        #expect(model.log.requests[0].enabledToolDefinitions.isEmpty)
        #expect(model.log.requests[1].instructionsText == "After.")
        #expect(model.log.requests[1].enabledToolDefinitions.map(\.name) == [Lookup().name])
    }

    @Test func forEachOptionalsAndModifiersResolve() async throws {
        let model = ScriptedModel()
        let session = LanguageModelSession(profile: LanguageModelSession.Profile {
            HouseRules(rules: [.init(id: 1, text: "No spoilers."), .init(id: 2, text: "Cite sources.")])
        }.modifier(Cautious()).model(model))
        _ = try await session.respond(to: "Hi")
        session.properties.isExpert = true
        _ = try await session.respond(to: "Hi")

        let rules = Instructions {
            "No spoilers."
            "Cite sources."
        }
        let reference = ScriptedModel()
        _ = try await LanguageModelSession(model: reference, dynamicInstructions: rules).respond(to: "Hi")
        #expect(model.log.requests[0].instructionsText == reference.log.requests[0].instructionsText)
        #expect(model.log.requests[1].instructionsText?.hasSuffix("Experts present.") == true)
        // The modifier's setting applies around its content.
        #expect(model.log.requests.allSatisfy { $0.generationOptions.temperature == 0 })
    }

    @Test func optionOverridesFillWhatTheRequestLeftNil() async throws {
        let model = ScriptedModel()
        let session = LanguageModelSession(profile: LanguageModelSession.Profile { Lookup() }
            .temperature(0.1)                // innermost: wins over the outer temperature
            .maximumResponseTokens(50)
            .samplingMode(.greedy)
            .reasoningLevel(.light)
            .toolCallingMode(.disallowed)
            .temperature(0.7)
            .model(model))
        _ = try await session.respond(to: "Hi")
        _ = try await session.respond(to: "Again", options: GenerationOptions(temperature: 0.9, maximumResponseTokens: 9))

        let first = model.log.requests[0], second = model.log.requests[1]
        #expect(first.generationOptions.temperature == 0.1)
        #expect(first.generationOptions.maximumResponseTokens == 50)
        #expect(first.generationOptions.samplingMode == .greedy)
        #expect(first.contextOptions.reasoningLevel == .light)
        #expect(first.generationOptions.toolCallingMode?.kind == .disallowed)
        #expect(first.enabledToolDefinitions.isEmpty)
        #expect(second.generationOptions.temperature == 0.9)
        #expect(second.generationOptions.maximumResponseTokens == 9)
        #expect(second.generationOptions.samplingMode == .greedy)
    }

    @Test func historyTransformRewritesWhatIsSentNotTheTranscript() async throws {
        let model = ScriptedModel()
        let session = LanguageModelSession(profile: LanguageModelSession.Profile { Instructions("Guide.") }
            .historyTransform { Array($0.suffix(2)) }
            .model(model))
        for prompt in ["One", "Two", "Three"] { _ = try await session.respond(to: prompt) }

        let last = try #require(model.log.requests.last)
        let expected = Array(session.transcript.history.dropLast(2).suffix(2))
        #expect(Array(last.transcript.dropFirst().dropLast()) == expected)
        #expect(last.instructionsText == "Guide.")
        #expect(session.transcript.count == 6)
    }

    @Test func aProfileCanSwitchModelsPerRequest() async throws {
        let small = ScriptedModel(name: "small"), large = ScriptedModel(name: "large")
        let session = LanguageModelSession(model: small, dynamicInstructions: EmptyDynamicInstructions())
        #expect(try await session.respond(to: "Hi").content == "reply from small")

        let switching = LanguageModelSession(profile: ModelSwitch(small: small, large: large))
        #expect(try await switching.respond(to: "Hi").content == "reply from small")
        switching.properties.isExpert = true
        #expect(try await switching.respond(to: "Hi").content == "reply from large")
        switching.properties.isExpert = false
        #expect(try await switching.respond(to: "Hi").content == "reply from small")
        // One executor per model per session, kept across switches (it holds the KV cache).
        #expect(small.log.executors == 2)
        #expect(large.log.executors == 1)
        #expect(large.log.requests.count == 1)
    }

    @Test func aProfileWithoutModelFailsTheRequest() async throws {
        let session = LanguageModelSession(profile: LanguageModelSession.Profile { Instructions("Guide.") })
        await #expect(throws: LanguageModelSession.NoModelError.self) { try await session.respond(to: "Hi") }
        #expect(!session.isResponding)
        #expect(session.transcript.isEmpty)
    }
}

/// Runs on the large model in expert mode, the small one otherwise.
struct ModelSwitch: LanguageModelSession.DynamicProfile {
    let small: ScriptedModel, large: ScriptedModel
    @SessionProperty(\.isExpert) var isExpert

    var body: some DynamicProfile {
        if isExpert {
            Profile { Instructions("In depth.") }.model(large)
        } else {
            Profile { Instructions("Briefly.") }.model(small)
        }
    }
}

/// Numbered rules, plus a line for experts when the session has them.
struct HouseRules: DynamicInstructions {
    struct Rule: Identifiable {
        let id: Int
        let text: String
    }
    let rules: [Rule]
    @SessionProperty(\.isExpert) var isExpert

    var body: some DynamicInstructions {
        ForEach(rules) { rule in Instructions(rule.text) }
        if isExpert {
            Instructions("Experts present.")
        }
    }
}

/// Makes whatever it modifies deterministic.
struct Cautious: LanguageModelSession.DynamicProfileModifier {
    func body(content: Content) -> some DynamicProfile {
        content.temperature(0)
    }
}
