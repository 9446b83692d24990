// One chat completion on a slot's executor: the FM27 executor request, its channel read into
// an answer (content, reasoning, tool calls, usage), written whole or as server-sent events.
import Foundation
import JSON
import LanguageModelAPI
import LocalModels
import Synchronization

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
    /// The answer tokens' log-probabilities, when the request asked for them.
    var logprobs: [LocalLanguageModel.TokenLogprob]?
}

/// Receives an answer as it grows (the streaming writer; the whole-response path ignores it).
protocol ChatAnswerSink: Sendable {
    func started() async
    /// Answer text and the log-probabilities of the tokens that made it (empty unless asked).
    func content(_ text: String, logprobs: [LocalLanguageModel.TokenLogprob]) async
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
            generationOptions: request.options,
            contextOptions: ContextOptions(reasoningLevel: request.reasoningLevel), metadata: [:])
        let channel = LanguageModelExecutorGenerationChannel()
        let recorded = TokenLogprobLog()
        let logprobs = request.logprobs.map { top in LocalLanguageModel.LogprobsRequest(top: top) { recorded.append($0) } }
        let generation = Task {
            defer { channel.finish() }
            var settings = LocalLanguageModel.SamplingDefaults(request.sampling, over: model.configuration.sampling)
            if let seed = request.sampling.seed { settings.seed = seed }
            try await executor.respond(to: executorRequest, model: model, streamingInto: channel, sampling: settings,
                                       logprobs: logprobs)
        }
        var answer = ChatAnswer()
        if logprobs != nil { answer.logprobs = [] }
        // Every generated token sends one event with a token count of 1 (and its log-probability
        // was recorded before): `position` counts them, so the n-th event's token is entry n.
        var position = 0
        // Answer tokens' log-probabilities not yet sent with text (a stop scanner may hold it).
        var pending: [LocalLanguageModel.TokenLogprob] = []
        var stops = StopScanner(request.stop)
        var announced = false
        do {
            try await withTaskCancellationHandler {
                for await event in channel {
                    switch event {
                    case let .response(_, .updateUsage(input, output, _)), let .reasoning(_, .updateUsage(input, output, _)),
                         let .toolCalls(_, .updateUsage(input, output, _)):
                        answer.promptTokens = input.totalTokenCount
                        answer.cachedTokens = input.cachedTokenCount
                        answer.completionTokens = max(answer.completionTokens, output.totalTokenCount)
                        answer.reasoningTokens = max(answer.reasoningTokens, output.reasoningTokenCount)
                        if !announced { announced = true; await sink?.started() }
                    case let .response(_, .appendText(text, _, n)):
                        answer.completionTokens += n
                        if logprobs != nil && n == 1, let entry = recorded.entry(position), !entry.chosen.bytes.isEmpty {
                            answer.logprobs?.append(entry)
                            pending.append(entry)
                        }
                        position += n
                        let safe = stops.feed(text)
                        answer.content += safe
                        if !safe.isEmpty {
                            await sink?.content(safe, logprobs: pending)
                            pending.removeAll()
                        }
                        if stops.stopped { generation.cancel() }
                    case let .reasoning(_, .appendText(text, _, n)):
                        answer.completionTokens += n
                        position += n
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
            if !rest.isEmpty { await sink?.content(rest, logprobs: pending) }
            if let limit = request.options.maximumResponseTokens, answer.completionTokens >= limit { answer.finishReason = "length" }
        }
        if !answer.toolCalls.isEmpty { answer.finishReason = "tool_calls" }
        return answer
    }
}

/// The log-probabilities an executor hands over from its decode loop, read by the task that
/// consumes the channel.
final class TokenLogprobLog: Sendable {
    private let entries = Mutex<[LocalLanguageModel.TokenLogprob]>([])

    func append(_ entry: LocalLanguageModel.TokenLogprob) { entries.withLock { $0.append(entry) } }

    /// The `index`-th generated token's entry, if recorded.
    func entry(_ index: Int) -> LocalLanguageModel.TokenLogprob? {
        entries.withLock { index < $0.count ? $0[index] : nil }
    }
}
