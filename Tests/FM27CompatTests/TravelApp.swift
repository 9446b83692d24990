// A Foundation Models 27 app file, written as Apple's documentation and WWDC26 sessions write
// one. The only change from the Apple-platform original is the import below. If any FM27
// spelling Quanta mirrors changes, this target stops compiling.
import Foundation
import Observation
import Quanta  // was: import FoundationModels

// MARK: - Generable types

@Generable(description: "How full the day is")
enum Pace: String, CaseIterable {
    case relaxed, balanced, packed
}

@Generable
struct Activity {
    @Guide(description: "What to do") var name: String
    @Guide(description: "Start hour, 24h clock", .range(6...23)) var hour: Int
}

@Generable(description: "A day plan")
struct Itinerary {
    @Guide(/[A-Z][a-z]+/) var city: String
    var pace: Pace
    @Guide(.range(0...500)) var budget: Double
    @Guide(.count(1...4)) var activities: [Activity]
}

// MARK: - A tool

struct FindMuseums: Tool {
    let name = "findMuseums"
    let description = "Finds museums in a city"

    @Generable
    struct Arguments {
        var city: String
    }

    func call(arguments: Arguments) async throws -> String {
        "In \(arguments.city): the Louvre, the Musée d'Orsay."
    }
}

// MARK: - The app

@MainActor
final class TravelPlanner {
    let session: LanguageModelSession
    private(set) var log: [String] = []

    init(model: some LanguageModel) {
        session = LanguageModelSession(model: model, tools: [FindMuseums()]) {
            "You are a travel agent."
            "Keep answers short."
        }
        session.transcriptErrorHandlingPolicy = .preserveTranscript
    }

    func plan(city: String) async throws -> Itinerary {
        session.prewarm(promptPrefix: Prompt("Plan a day in"))
        let options = GenerationOptions(samplingMode: .random(top: 40, seed: 7), temperature: 0.7,
                                        maximumResponseTokens: 400, toolCallingMode: .allowed)
        let context = ContextOptions(includeSchemaInPrompt: true, reasoningLevel: nil)
        let response = try await session.respond(to: Prompt("Plan a day in \(city)."), generating: Itinerary.self,
                                                 options: options, contextOptions: context, metadata: ["screen": "planner"])
        log.append("cached \(response.usage.input.cachedTokenCount), reasoning \(response.usage.output.reasoningTokenCount)")
        log.append(response.rawContent.jsonString)
        return response.content
    }

    func streamPlan(city: String) async throws {
        let stream = session.streamResponse(generating: Itinerary.self, options: GenerationOptions(samplingMode: .greedy)) {
            "Plan a day in"
            city
        }
        for try await snapshot in stream {
            log.append("\(snapshot.content.city ?? "…") \(snapshot.content.activities?.count ?? 0) \(snapshot.usage.output.totalTokenCount)")
            _ = snapshot.rawContent.isComplete
        }
    }

    func chat(_ text: String) async throws -> String {
        let greedy = GenerationOptions(sampling: .greedy, maximumResponseTokens: 64)
        let response = try await session.respond(to: text, options: greedy)
        if case .greedy = greedy.samplingMode?.kind { log.append("greedy") }
        return response.content
    }

    func dynamic() async throws -> GeneratedContent {
        let museum = DynamicGenerationSchema(name: "Museum", properties: [
            .init(name: "name", schema: DynamicGenerationSchema(type: String.self)),
            .init(name: "free", schema: DynamicGenerationSchema(type: Bool.self), isOptional: true),
        ])
        let schema = try GenerationSchema(root: DynamicGenerationSchema(arrayOf: museum, minimumElements: 1, maximumElements: 3),
                                          dependencies: [])
        let response = try await session.respond(to: "List museums.", schema: schema)
        return response.content
    }

    func describe(_ error: any Error) -> String {
        if let error = error as? LanguageModelError {
            switch error {
            case .contextSizeExceeded(let e): return "too long: \(e.tokenCount) > \(e.contextSize)"
            case .rateLimited(let e): return "rate limited until \(String(describing: e.resetDate))"
            case .guardrailViolation(let e): return e.debugDescription
            case .refusal(let e): return e.debugDescription
            case .unsupportedCapability(let e): return "needs \(e.capability)"
            case .unsupportedTranscriptContent(let e): return "\(e.unsupportedContent.count) entries unsupported"
            case .unsupportedGenerationGuide(let e): return "guide of \(e.schemaName ?? "?")"
            case .unsupportedLanguageOrLocale(let e): return "language \(e.languageCode)"
            case .timeout(let e): return e.debugDescription
            @unknown default: return error.localizedDescription
            }
        }
        if let error = error as? LanguageModelSession.Error {
            switch error {
            case .concurrentRequests: return "busy"
            case .transcriptMutationWhileResponding: return error.debugDescription
            }
        }
        if let error = error as? LanguageModelSession.ToolCallError { return "\(error.tool.name): \(error.underlyingError)" }
        return error.localizedDescription
    }

    func editTranscript() {
        var transcript = session.transcript
        if case .response? = transcript.last { transcript.removeLast() }
        transcript.append(.response(Transcript.Response(segments: [.text(Transcript.TextSegment(content: "Edited."))])))
        session.transcript = transcript
        for entry in session.transcript {
            switch entry {
            case .instructions(let i): log.append("tools: \(i.toolDefinitions.map(\.name))")
            case .prompt(let p): log.append("prompt \(p.segments.count) \(p.options.maximumResponseTokens ?? 0)")
            case .toolCalls(let calls): log.append(calls.map { "\($0.toolName)(\($0.arguments.jsonString))" }.joined())
            case .toolOutput(let output): log.append("\(output.toolName) -> \(output.segments.count)")
            case .response(let r):
                for segment in r.segments {
                    switch segment {
                    case .text(let t): log.append(t.content)
                    case .structure(let s): log.append("\(s.source): \(s.content.jsonString)")
                    case .attachment(let a): log.append(a.label ?? "attachment")
                    case .custom(let c): log.append(c.description)
                    }
                }
            case .reasoning(let r): log.append("thought \(r.segments.count)")
            }
        }
        log.append("history \(session.transcript.history.count)")
    }

    func rate(_ good: Bool) -> Data {
        session.logFeedbackAttachment(sentiment: good ? .positive : .negative,
                                      issues: good ? [] : [LanguageModelFeedback.Issue(category: .incorrect, explanation: "wrong city")])
    }

    func observe() {
        withObservationTracking {
            _ = session.isResponding
            _ = session.usage.totalTokenCount
        } onChange: {
            print("session changed")
        }
    }
}

// MARK: - The system model

@Generable
struct Topics {
    @Guide(description: "Topics of the text", .count(1...3)) var topics: [String]
}

@MainActor
final class QuickAssistant {
    private let model = SystemLanguageModel.default
    private let session = LanguageModelSession(instructions: "Answer in one sentence.")

    var status: String {
        switch model.availability {
        case .available: "ready"
        case .unavailable(.modelNotReady): "downloading"
        case .unavailable(let reason): "unavailable: \(reason)"
        }
    }

    func ask(_ question: String) async throws -> String {
        guard model.isAvailable, model.supportsLocale() else { return status }
        return try await session.respond(to: question).content
    }

    func topics(of text: String) async throws -> [String] {
        let tagger = LanguageModelSession(model: SystemLanguageModel(useCase: .contentTagging))
        return try await tagger.respond(to: text, generating: Topics.self).content.topics
    }

    func fits(_ text: String) async throws -> Bool {
        try await model.tokenCount(for: Prompt(text)) < model.contextSize
    }
}

// MARK: - A model of one's own, plugged into the session (the provider side of FM27)

struct CannedModel: LanguageModel {
    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities(capabilities: [.toolCalling]) }
    var executorConfiguration: Executor.Configuration { Executor.Configuration(reply: "Bonjour") }

    struct Executor: LanguageModelExecutor {
        struct Configuration: Hashable, Sendable { var reply: String }
        typealias Model = CannedModel
        let configuration: Configuration
        init(configuration: Configuration) { self.configuration = configuration }

        func respond(to request: LanguageModelExecutorGenerationRequest, model: CannedModel,
                     streamingInto channel: LanguageModelExecutorGenerationChannel) async throws {
            let calledAlready = request.transcript.contains { if case .toolOutput = $0 { true } else { false } }
            if !request.enabledToolDefinitions.isEmpty && !calledAlready {
                await channel.send(.toolCalls(action: .toolCall(id: "call-1", name: "findMuseums",
                                                                action: .appendArguments(#"{"city": "Paris"}"#, tokenCount: 6))))
            } else {
                await channel.send(.response(action: .appendText(configuration.reply, tokenCount: 2)))
            }
            await channel.send(.response(action: .updateUsage(input: .init(totalTokenCount: 10, cachedTokenCount: 4),
                                                              output: .init(totalTokenCount: 2, reasoningTokenCount: 0))))
            _ = request.metadata
            _ = request.schema
        }
    }
}

// MARK: - A dynamic profile (FM27)

extension SessionPropertyValues {
    @SessionPropertyEntry var tripCity: String? = nil
    @SessionPropertyEntry var isPlanning: Bool = false
}

struct TravelContext: DynamicInstructions {
    @SessionProperty(\.tripCity) var tripCity

    var body: some DynamicInstructions {
        Instructions {
            "You are a travel agent."
            "Keep answers short."
        }
        if let tripCity {
            Instructions("The traveller is going to \(tripCity).")
        }
        FindMuseums()
    }
}

struct ConciergeProfile: LanguageModelSession.DynamicProfile {
    @SessionProperty(\.isPlanning) var isPlanning

    var body: some DynamicProfile {
        if isPlanning {
            Profile {
                TravelContext()
                Instructions("Produce a detailed day plan.")
            }
            .temperature(0.3)
            .maximumResponseTokens(800)
            .toolCallingMode(.allowed)
            .onActivate { print("planning started") }
            .onDeactivate { print("planning finished") }
        } else {
            Profile { TravelContext() }
                .samplingMode(.greedy)
                .historyTransform { entries in Array(entries.suffix(8)) }
        }
    }
}

struct Logged: LanguageModelSession.DynamicProfileModifier {
    func body(content: Content) -> some DynamicProfile {
        content
            .onPrompt { prompt in print("prompt", prompt.segments.count) }
            .onReasoning { print("thinking") }
            .onToolCall { call in print("calling", call.toolName) }
            .onToolOutput { call, output in print(call.toolName, "returned", output.segments.count) }
            .onResponse { response in print("answered", response.segments.count) }
    }
}

@MainActor
final class Concierge {
    @MainActor final class Stats { var activations = 0 }

    let session: LanguageModelSession
    let stats = Stats()

    init(model: some LanguageModel, history: [Transcript.Entry] = []) {
        let stats = self.stats
        session = LanguageModelSession(
            profile: ConciergeProfile()
                .modifier(Logged())
                .onActivate { stats.activations += 1 }
                .transcriptErrorHandlingPolicy(.preserveTranscript)
                .model(model),
            history: history)
    }

    func plan(city: String) async throws -> String {
        session.properties.tripCity = city
        session.properties.isPlanning = true
        defer { session.properties.isPlanning = false }
        return try await session.respond(to: "Plan my day.").content
    }

    var turns: Int { session.properties.history.count }

    static func guide(model: some LanguageModel) -> LanguageModelSession {
        LanguageModelSession(model: model, dynamicInstructions: TravelContext())
    }
}
