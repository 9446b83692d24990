// The decode loop behind `LocalLanguageModel`: prefix reuse, prefill, sampling, constrained
// decoding, think-block accounting, tool-call detection and streaming.
import LanguageModelAPI
import Foundation
import Sampling
import Synchronization
import Tokenizers

extension LocalLanguageModel {
    /// Runs one session's requests on a `LocalLanguageModel`. It owns the session's KV cache and
    /// remembers which tokens it holds, so each request recomputes only what changed.
    public final class Executor: LanguageModelExecutor {
        /// Which file, window and thread count; no per-request data.
        public struct Configuration: Hashable, Sendable {
            /// Path of the GGUF file.
            public var path: String
            /// Context window in tokens.
            public var contextSize: Int
            /// Threads for the forward pass.
            public var threads: Int
            /// How the KV cache stores keys and values.
            public var kvCache: KVCacheType
            /// Sampler settings where a request says nothing.
            public var sampling: SamplingDefaults
        }

        private struct State {
            /// The KV cache; nil while a request (or prewarm) holds it, or before the first one.
            var sequence: TokenSequence?
            /// A prewarm prefill that the next request waits for.
            var prewarm: Task<Void, Never>?
        }

        /// The file, window and threads this executor runs with.
        public let configuration: Configuration
        private let state = Mutex(State())

        /// An executor with an empty cache; nothing is allocated until the first request.
        public init(configuration: Configuration) throws {
            self.configuration = configuration
        }

        /// While this executor is idle: how many leading tokens of `prompt` (a rendered request,
        /// `promptTokens(for:)`) its cache holds, and how many prompt tokens it holds in all
        /// (what a request that keeps only the first would drop); zeros while it runs a request.
        /// A server picks the slot whose cache holds the most of a request's prompt and drops
        /// the least (a conversation's next turn finds its earlier turns).
        public func cachedPrefix(of prompt: [Int32]) -> (held: Int, cached: Int) {
            state.withLock { s in s.sequence.map { ($0.cachedPrefix(of: prompt), $0.prefilled) } ?? (0, 0) }
        }

        /// Prefills the rendered `transcript` (instructions and prompt prefix, no generation
        /// prompt) in the background; the next request waits for it and finds it cached.
        public func prewarm(model: LocalLanguageModel, transcript: Transcript) {
            guard let prompt = try? model.loaded.render(transcript, addGenerationPrompt: false),
                  prompt.tokens.count < configuration.contextSize else { return }
            state.withLock { s in
                let previous = s.prewarm
                s.prewarm = Task {
                    await previous?.value
                    let sequence = self.takeSequence(model)
                    defer { self.putBack(sequence) }
                    _ = sequence.reuse(prompt.tokens + [0])   // keep all matching prompt tokens
                    let missing = Array(prompt.tokens[sequence.tokens.count...])
                    _ = try? await sequence.prefill(missing, wantLogits: false)
                }
            }
        }

        /// Renders the request, reuses the cached prefix, prefills the rest and decodes,
        /// sending reasoning, response text or tool calls per token, and usage after prefill and
        /// at the end.
        public func respond(to request: LanguageModelExecutorGenerationRequest, model: LocalLanguageModel,
                            streamingInto channel: LanguageModelExecutorGenerationChannel) async throws {
            try await respond(to: request, model: model, streamingInto: channel, sampling: nil, logprobs: nil)
        }

        /// `respond(to:model:streamingInto:)` with this request's own sampler settings in place of
        /// the model's (`configuration.sampling`): what the request's options leave out comes from
        /// `sampling`, so a caller can give top-k, top-p and min-p together and OpenAI's penalties,
        /// which FM27's options cannot say. nil = the model's settings. With `logprobs`, every
        /// generated token's log-probability is handed to it before the token's event is sent.
        public func respond(to request: LanguageModelExecutorGenerationRequest, model: LocalLanguageModel,
                            streamingInto channel: LanguageModelExecutorGenerationChannel,
                            sampling: SamplingDefaults?, logprobs: LogprobsRequest? = nil) async throws {
            let settings = sampling ?? configuration.sampling
            if let reason = settings.invalidReason { throw InvalidGenerationOptionsError(reason: reason) }
            // Everything that can reject the request runs before any compute.
            try model.capabilities.validate(request)
            guard let last = request.transcript.last, last.isRequestEnd else {
                throw LanguageModelError.unsupportedTranscriptContent(.init(
                    unsupportedContent: [], debugDescription: "a request's transcript must end with a prompt or tool outputs"))
            }
            let level = request.contextOptions.reasoningLevel
            let loaded = model.loaded
            let plan = try OutputPlan(request: request, loaded: loaded)
            var renderOptions = RenderOptions()
            renderOptions.enableThinking = ReasoningBudget.isOff(level) ? false : nil
            renderOptions.promptSuffix = plan.promptSuffix
            renderOptions.tools = plan.tools
            let prompt = try loaded.render(plan.transcript, renderOptions)
            let contextSize = configuration.contextSize
            guard prompt.tokens.count < contextSize else {
                throw LanguageModelError.contextSizeExceeded(.init(contextSize: contextSize, tokenCount: prompt.tokens.count))
            }
            let room = contextSize - prompt.tokens.count
            let limit = min(request.generationOptions.maximumResponseTokens ?? room, room)
            // Whether the window, not the caller's `maximumResponseTokens`, bounds the answer.
            let windowBounds = request.generationOptions.maximumResponseTokens.map { $0 > room } ?? true

            let pending = state.withLock { $0.prewarm }
            await pending?.value
            let sequence = takeSequence(model)
            defer { putBack(sequence) }
            let cached = sequence.reuse(prompt.tokens)
            let logits = try await sequence.prefill(Array(prompt.tokens[cached...]), wantLogits: true) ?? []
            let input = LanguageModelExecutorGenerationChannel.Usage.Input(totalTokenCount: prompt.tokens.count, cachedTokenCount: cached)
            await channel.send(.response(action: .updateUsage(input: input, output: .init(totalTokenCount: 0, reasoningTokenCount: 0))))

            var events = ResponseEventWriter(loaded: loaded, channel: channel, startsInsideThinking: prompt.startsInsideThinking,
                                             thinkingBudget: ReasoningBudget.tokens(for: level, maximumResponseTokens: limit),
                                             filter: AnswerFilter(stopSequences: loaded.stopSequences, callOpenings: plan.callOpenings,
                                                                  markup: plan.markup))
            var gate = plan.gate
            var sampler = Sampler(request.generationOptions.samplingParameters(defaults: settings,
                                                                                fallbackSeed: settings.seed
                                                                                    ?? UInt64.random(in: 0...UInt64.max)))
            for token in prompt.tokens { sampler.acceptPrompt(token) }
            var decodeLoop = DecodeLoop(sequence: sequence, contextSize: contextSize, limit: limit, sampler: sampler)
            // A constrained answer may follow a think block: before the first token the model's own
            // choice of the opening marker (sampled unconstrained) starts one, unless thinking is off.
            let mayThink = !ReasoningBudget.isOff(level)
            let (generated, stop) = try await decodeLoop.run(logits: logits, choose: { logits, remaining, sampler in
                let raw = logprobs == nil ? nil : logits
                let token: Int32
                if let forced = events.forcedToken {
                    token = forced
                } else if events.isAnswering, gate != nil {
                    var opening: Int32?
                    if mayThink, let open = events.thinkOpening {
                        var free = logits
                        if sampler.sample(&free) == open { opening = open }
                    }
                    token = opening ?? gate!.next(logits: &logits, remaining: remaining, sampler: &sampler)
                } else {
                    token = sampler.sample(&logits)
                }
                if let logprobs, let raw {
                    logprobs.receive(TokenLogprob(token: token, logits: raw, top: logprobs.top, tokenizer: loaded.tokenizer))
                }
                return token
            }, emit: { token in
                if events.isAnswerToken(token) { gate?.accept(token) }
                return await events.emit(token) == .more
            })
            // An answer still going when the window is full, or one the gate had to close early to
            // fit, did not fit: FM27's error, not an answer cut short without a word.
            if windowBounds && (stop != .endOfGeneration || gate?.didForceCompletion == true) {
                throw LanguageModelError.contextSizeExceeded(.init(
                    contextSize: contextSize, tokenCount: contextSize + 1,
                    debugDescription: "the answer did not end within the context window of \(contextSize) tokens "
                        + "(prompt \(prompt.tokens.count) tokens, answer \(generated) so far)"))
            }
            let answer = await events.finish()
            if let calls = plan.toolCalls(in: answer) {
                for call in calls {
                    await channel.send(.toolCalls(action: .toolCall(id: call.id, name: call.name,
                                                                    action: .appendArguments(call.arguments, tokenCount: 0))))
                }
            } else if events.filterHeldCall {
                await events.releaseHeldCall()
            }
            await channel.send(.response(action: .updateUsage(input: input, output: events.usage)))
        }

        /// The session's sequence (made on first use), removed from the state while in use.
        private func takeSequence(_ model: LocalLanguageModel) -> TokenSequence {
            let held = state.withLock { s -> TokenSequence? in
                defer { s.sequence = nil }
                return s.sequence
            }
            return held ?? TokenSequence(network: model.loaded.network, contextSize: configuration.contextSize,
                                         threads: configuration.threads, kvCache: configuration.kvCache.format,
                                         batcher: model.loaded.batcher(threads: configuration.threads,
                                                                        contextSize: configuration.contextSize))
        }

        private func putBack(_ sequence: TokenSequence) {
            state.withLock { $0.sequence = sequence }
        }
    }
}

extension Transcript.Entry {
    /// Whether a request may end with this entry: a prompt, or tool outputs to answer.
    var isRequestEnd: Bool {
        switch self {
        case .prompt, .toolOutput: return true
        default: return false
        }
    }
}
