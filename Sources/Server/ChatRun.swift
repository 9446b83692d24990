// One chat completion on a slot's executor: the FM27 executor request, its channel read into
// an answer (content, reasoning, tool calls, usage), written whole or as server-sent events.
import Foundation
import JSON
import LanguageModelAPI
import LocalModels

/// What one request produced.
struct ChatAnswer {
    var content = ""
    var reasoning = ""
    var toolCalls: [(id: String, name: String, arguments: String)] = []
    var promptTokens = 0
    var cachedTokens = 0
    var completionTokens = 0
    var reasoningTokens = 0
    var finishReason = "stop"
}

/// Receives an answer as it grows (the streaming writer; the whole-response path ignores it).
protocol ChatAnswerSink: Sendable {
    func started() async
    func content(_ text: String) async
    func reasoning(_ text: String) async
}

enum ChatRun {
    /// Runs `request` on `executor` and returns the answer. Cancelling the task stops generation
    /// within one token and returns what was generated with the finish reason `cancelled`; a
    /// stop sequence in the answer ends it there.
    static func run(_ request: ChatRequest, model: LocalLanguageModel, executor: LocalLanguageModel.Executor,
                    sink: (any ChatAnswerSink)?) async throws -> ChatAnswer {
        let executorRequest = LanguageModelExecutorGenerationRequest(
            id: UUID(), transcript: request.transcript, enabledTools: request.tools, schema: request.schema,
            generationOptions: try options(request, defaults: model.configuration.sampling),
            contextOptions: ContextOptions(), metadata: [:])
        let channel = LanguageModelExecutorGenerationChannel()
        let generation = Task {
            defer { channel.finish() }
            try await executor.respond(to: executorRequest, model: model, streamingInto: channel)
        }
        var answer = ChatAnswer()
        var stops = StopScanner(request.stop)
        var announced = false
        do {
            try await withTaskCancellationHandler {
                for await event in channel {
                    switch event {
                    case let .response(_, .updateUsage(input, output, _)), let .reasoning(_, .updateUsage(input, output, _)),
                         let .toolCalls(_, .updateUsage(input, output, _)):
                        answer.promptTokens = input.totalTokenCount
                        answer.cachedTokens = input.cachedTokenCount ?? 0
                        answer.completionTokens = max(answer.completionTokens, output.totalTokenCount)
                        answer.reasoningTokens = max(answer.reasoningTokens, output.reasoningTokenCount ?? 0)
                        if !announced { announced = true; await sink?.started() }
                    case let .response(_, .appendText(text, _, n)):
                        answer.completionTokens += n
                        let safe = stops.feed(text)
                        answer.content += safe
                        if !safe.isEmpty { await sink?.content(safe) }
                        if stops.stopped { generation.cancel() }
                    case let .reasoning(_, .appendText(text, _, n)):
                        answer.completionTokens += n
                        answer.reasoningTokens += n
                        answer.reasoning += text
                        if !text.isEmpty { await sink?.reasoning(text) }
                    case let .toolCalls(_, .toolCall(id, name, .appendArguments(arguments, _))):
                        if let i = answer.toolCalls.firstIndex(where: { $0.id == id }) {
                            answer.toolCalls[i].arguments += arguments
                        } else {
                            answer.toolCalls.append((id, name, arguments))
                        }
                    default: break
                    }
                }
                try await generation.value
            } onCancel: {
                generation.cancel()
            }
        } catch is CancellationError where stops.stopped {
            // The answer reached a stop sequence; generation was cut there.
        } catch is CancellationError {
            // The client went away: what was generated is counted, nothing more is sent.
            answer.finishReason = "cancelled"
            return answer
        } catch let LanguageModelError.contextSizeExceeded(context) where announced {
            // The answer filled the window: what was generated stands, cut for length.
            _ = context
            answer.finishReason = "length"
        }
        if !stops.stopped {
            let rest = stops.flush()
            answer.content += rest
            if !rest.isEmpty { await sink?.content(rest) }
            if let limit = request.options.maximumResponseTokens, answer.completionTokens >= limit { answer.finishReason = "length" }
        }
        if !answer.toolCalls.isEmpty { answer.finishReason = "tool_calls" }
        return answer
    }

    /// FM27 options for the request: its temperature, its one of top-k / top-p and its seed.
    static func options(_ request: ChatRequest, defaults: LocalLanguageModel.SamplingDefaults) throws(APIError) -> GenerationOptions {
        var options = request.options
        switch request.sampling {
        case let .defaults(temperature, seed):
            options.temperature = temperature
            if let seed { options.sampling = seeded(defaults, seed) }
        case let .topK(k, temperature, seed):
            options.temperature = temperature
            options.sampling = .random(top: k, seed: seed)
        case let .topP(p, temperature, seed):
            options.temperature = temperature
            options.sampling = .random(probabilityThreshold: p, seed: seed)
        case let .minP(p, temperature, seed):
            guard p == defaults.minP else {
                throw APIError.unsupported("min_p", "min_p is set per server (--min-p, here \(defaults.minP)); a request may not change it")
            }
            options.temperature = temperature
            if let seed { options.sampling = seeded(defaults, seed) }
        }
        return options
    }

    /// The server's default filter with a request's seed (FM27 modes carry one of top-k and
    /// top-p: top-k when the server sets one).
    private static func seeded(_ defaults: LocalLanguageModel.SamplingDefaults, _ seed: UInt64) -> GenerationOptions.SamplingMode {
        defaults.topK > 0 ? .random(top: defaults.topK, seed: seed) : .random(probabilityThreshold: defaults.topP, seed: seed)
    }
}
