// A fake model for profile tests: records every request it is sent and answers by a small
// script (optional reasoning, one call of the first offered tool, then a reply naming itself).
import Foundation
import Quanta
import Synchronization

/// What a `ScriptedModel` saw: the requests, in order, and how many executors were made for it.
final class RequestLog: Sendable, Hashable {
    private let state = Mutex<(requests: [LanguageModelExecutorGenerationRequest], executors: Int)>(([], 0))
    var requests: [LanguageModelExecutorGenerationRequest] { state.withLock { $0.requests } }
    var executors: Int { state.withLock { $0.executors } }
    func record(_ request: LanguageModelExecutorGenerationRequest) { state.withLock { $0.requests.append(request) } }
    func executorMade() { state.withLock { $0.executors += 1 } }

    static func == (a: RequestLog, b: RequestLog) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

struct ScriptedModel: LanguageModel {
    var name = "scripted"
    /// Whether the model reasons before answering (first round only).
    var reasons = false
    /// Whether the model calls the first offered tool before answering.
    var callsTools = false
    let log = RequestLog()

    var capabilities: LanguageModelCapabilities { [.toolCalling, .reasoning, .guidedGeneration] }
    var executorConfiguration: Executor.Configuration { Executor.Configuration(name: name, log: log) }

    struct Executor: LanguageModelExecutor {
        struct Configuration: Hashable, Sendable {
            var name: String
            var log: RequestLog
        }
        init(configuration: Configuration) { configuration.log.executorMade() }

        func respond(to request: LanguageModelExecutorGenerationRequest, model: ScriptedModel,
                     streamingInto channel: LanguageModelExecutorGenerationChannel) async throws {
            model.log.record(request)
            let toolRan = request.transcript.contains { if case .toolOutput = $0 { true } else { false } }
            if model.reasons && !toolRan {
                await channel.send(.reasoning(action: .appendText("Thinking.", tokenCount: 1)))
            }
            if model.callsTools, !toolRan, let tool = request.enabledToolDefinitions.first {
                await channel.send(.toolCalls(action: .toolCall(id: "call-1", name: tool.name,
                                                                action: .appendArguments("{}", tokenCount: 1))))
            } else {
                await channel.send(.response(action: .appendText("reply from \(model.name)", tokenCount: 1)))
            }
        }
    }
}

/// A tool that records its calls and, when `flips` is set, turns expert mode on.
struct Lookup: Tool {
    let description = "Looks something up"
    var flips = false
    @SessionProperty(\.isExpert) var isExpert

    func call(arguments: GeneratedContent) async throws -> String {
        if flips { isExpert = true }
        return "found"
    }
}

struct ExpertKey: SessionPropertyKey { static let defaultValue = false }
struct AudienceKey: SessionPropertyKey { static let defaultValue = "travellers" }

// Written by hand: the `@SessionPropertyEntry` macro would generate these.
extension SessionPropertyValues {
    var isExpert: Bool {
        get { self[ExpertKey.self] }
        set { self[ExpertKey.self] = newValue }
    }
    var audience: String {
        get { self[AudienceKey.self] }
        set { self[AudienceKey.self] = newValue }
    }
}

/// Lines appended from callbacks, in order.
final class EventLog: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func add(_ line: String) { lines.withLock { $0.append(line) } }
}

extension LanguageModelExecutorGenerationRequest {
    /// The text of the instructions entry the request starts with, if any.
    var instructionsText: String? {
        guard case let .instructions(i)? = transcript.first else { return nil }
        return i.segments.compactMap { if case let .text(t) = $0 { t.content } else { nil } }.joined()
    }
}
