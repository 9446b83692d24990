// Profile callbacks and branch switching: what fires, and in which order, as requests run and
// session properties change.
import Foundation
import Observation
import Quanta
import Testing

@Suite struct ProfileCallbackTests {
    @Test func callbacksFireAsEntriesAreAdded() async throws {
        let model = ScriptedModel(reasons: true, callsTools: true)
        let events = EventLog()
        let session = LanguageModelSession(profile: LanguageModelSession.Profile { Lookup() }
            .onActivate { events.add("activate") }
            .onPrompt { prompt in events.add("prompt \(prompt.segments.count)") }
            .onReasoning { _ in events.add("reasoning") }
            .onToolCall { call in events.add("call \(call.toolName)") }
            .onToolOutput { call, output in events.add("output \(output.toolName == call.toolName)") }
            .onResponse { _ in events.add("response") }
            .model(model))
        _ = try await session.respond(to: "Hi")
        #expect(events.all == ["activate", "prompt 1", "reasoning", "call \(Lookup().name)", "output true", "response"])

        _ = try await session.respond(to: "Again")
        // Still the same profile: no second activation.
        #expect(events.all.filter { $0 == "activate" }.count == 1)
    }

    @Test func branchSwitchDeactivatesTheOldAndActivatesTheNew() async throws {
        let model = ScriptedModel()
        let events = EventLog()
        let session = LanguageModelSession(profile: Concierge(events: events).model(model))
        _ = try await session.respond(to: "Hi")
        #expect(events.all == ["novice on"])
        #expect(model.log.requests[0].instructionsText == "Answer briefly for travellers.")

        session.properties.isExpert = true
        session.properties.audience = "pilots"
        _ = try await session.respond(to: "Hi")
        #expect(events.all == ["novice on", "novice off", "expert on"])
        #expect(model.log.requests[1].instructionsText == "Answer in depth for pilots.")
        #expect(model.log.requests[1].generationOptions.temperature == 0.2)
    }

    @Test func aToolCanChangeTheProfileForTheNextRequest() async throws {
        let model = ScriptedModel(callsTools: true)
        let events = EventLog()
        let session = LanguageModelSession(profile: Concierge(events: events, flips: true).model(model))
        _ = try await session.respond(to: "Hi")
        #expect(session.properties.isExpert)
        _ = try await session.respond(to: "Hi")
        #expect(events.all == ["novice on", "novice off", "expert on"])
        #expect(model.log.requests.last?.instructionsText == "Answer in depth for travellers.")
    }

    @Test func aFixedToolSeesTheSessionProperties() async throws {
        let session = LanguageModelSession(model: ScriptedModel(callsTools: true), tools: [Lookup(flips: true)])
        _ = try await session.respond(to: "Hi")
        #expect(session.properties.isExpert)
    }

    @Test func aThrowingCallbackFailsTheRequestUnderTheProfilePolicy() async throws {
        struct Refused: Error {}
        let model = ScriptedModel()
        let session = LanguageModelSession(profile: LanguageModelSession.Profile { Instructions("Guide.") }
            .onResponse { throw Refused() }
            .transcriptErrorHandlingPolicy(.preserveTranscript)
            .model(model))
        await #expect(throws: Refused.self) { try await session.respond(to: "Hi") }
        // Preserved by the profile's policy (the session's own is the default, revert).
        #expect(session.transcript.count == 2)
        #expect(!session.isResponding)
    }

    @Test func propertiesHistoryTracksTheTranscript() async throws {
        let model = ScriptedModel()
        let session = LanguageModelSession(profile: LanguageModelSession.Profile { Instructions("Guide.") }.model(model))
        #expect(session.properties.history.isEmpty)

        let changed = EventLog()
        withObservationTracking { _ = session.properties.history } onChange: { changed.add("history") }
        _ = try await session.respond(to: "Hi")
        #expect(changed.all == ["history"])
        #expect(Array(session.properties.history) == Array(session.transcript.history))
        #expect(session.properties.history.count == 2)

        session.properties.history = session.properties.history.dropLast()
        #expect(session.transcript.count == 1)

        let valueChanged = EventLog()
        withObservationTracking { _ = session.properties.isExpert } onChange: { valueChanged.add("expert") }
        session.properties.audience = "pilots"
        #expect(valueChanged.all.isEmpty)
        session.properties.isExpert = true
        #expect(valueChanged.all == ["expert"])
    }

    @Test func streamingResolvesTheProfileToo() async throws {
        let model = ScriptedModel()
        let events = EventLog()
        let session = LanguageModelSession(profile: LanguageModelSession.Profile { Instructions("Guide.") }
            .onPrompt { events.add("prompt") }
            .onResponse { events.add("response") }
            .maximumResponseTokens(20)
            .model(model))
        let response = try await session.streamResponse(to: "Hi").collect()
        #expect(response.content == "reply from scripted")
        #expect(events.all == ["prompt", "response"])
        #expect(model.log.requests.first?.generationOptions.maximumResponseTokens == 20)
        #expect(model.log.requests.first?.instructionsText == "Guide.")
    }
}

/// Brief for novices, in depth (and cooler) for experts; reports switches to `events`.
struct Concierge: LanguageModelSession.DynamicProfile {
    let events: EventLog
    var flips = false
    @SessionProperty(\.isExpert) var isExpert

    var body: some DynamicProfile {
        if isExpert {
            Profile { Audience(style: "Answer in depth") }
                .temperature(0.2)
                .onActivate { events.add("expert on") }
                .onDeactivate { events.add("expert off") }
        } else {
            Profile {
                Audience(style: "Answer briefly")
                Lookup(flips: flips)
            }
            .onActivate { events.add("novice on") }
            .onDeactivate { events.add("novice off") }
        }
    }
}

/// Instructions that name the session's audience.
struct Audience: DynamicInstructions {
    let style: String
    @SessionProperty(\.audience) var audience

    var body: some DynamicInstructions {
        Instructions("\(style) for \(audience).")
    }
}
