// The decode loop behind `LocalLanguageModel`: prefix reuse, prefill, sampling, think-block
// accounting and streaming.
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

        /// Prefills the rendered `transcript` (instructions and prompt prefix, no generation
        /// prompt) in the background; the next request waits for it and finds it cached.
        public func prewarm(model: LocalLanguageModel, transcript: Transcript) {
            guard let prompt = try? model.weights.render(transcript, addGenerationPrompt: false),
                  prompt.tokens.count < configuration.contextSize else { return }
            state.withLock { s in
                let previous = s.prewarm
                s.prewarm = Task {
                    await previous?.value
                    let sequence = self.takeSequence(model)
                    defer { self.putBack(sequence) }
                    _ = sequence.reuse(prompt.tokens + [0])   // keep all matching prompt tokens
                    let missing = Array(prompt.tokens[sequence.tokens.count...])
                    _ = try? sequence.append(missing, wantLogits: false)
                }
            }
        }

        /// Renders the request, reuses the cached prefix, prefills the rest and decodes,
        /// sending reasoning and response text per token and usage after prefill and at the end.
        public func respond(to request: LanguageModelExecutorGenerationRequest, model: LocalLanguageModel,
                            streamingInto channel: LanguageModelExecutorGenerationChannel) async throws {
            // Everything that can reject the request runs before any compute.
            let level = request.contextOptions.reasoningLevel
            if level != nil && !model.capabilities.contains(.reasoning) {
                throw LanguageModelError.unsupportedCapability(.init(
                    capability: .reasoning, debugDescription: "this model has no think markers, so it cannot take a reasoning level"))
            }
            guard case .prompt? = request.transcript.last else {
                throw LanguageModelError.unsupportedTranscriptContent(.init(
                    unsupportedContent: [], debugDescription: "a request's transcript must end with a prompt"))
            }
            let weights = model.weights
            let prompt = try weights.render(request.transcript, enableThinking: ReasoningBudget.isOff(level) ? false : nil)
            let contextSize = configuration.contextSize
            guard prompt.tokens.count < contextSize else {
                throw LanguageModelError.contextSizeExceeded(.init(contextSize: contextSize, tokenCount: prompt.tokens.count))
            }
            let room = contextSize - prompt.tokens.count
            let limit = max(0, min(request.generationOptions.maximumResponseTokens ?? room, room))

            let pending = state.withLock { $0.prewarm }
            await pending?.value
            let sequence = takeSequence(model)
            defer { putBack(sequence) }
            let cached = sequence.reuse(prompt.tokens)
            var logits = try sequence.append(Array(prompt.tokens[cached...]), wantLogits: true) ?? []
            let input = Usage.Input(totalTokenCount: prompt.tokens.count, cachedTokenCount: cached)
            await channel.send(.response(action: .updateUsage(input: input, output: Usage.Output())))

            var loop = DecodeLoop(weights: weights, channel: channel, startsInsideThinking: prompt.startsInsideThinking,
                                  thinkingBudget: ReasoningBudget.tokens(for: level, maximumResponseTokens: limit))
            var sampler = Sampler(request.generationOptions.samplingParameters(fallbackSeed: UInt64.random(in: 0...UInt64.max)))
            var last: Int32?
            while loop.generated < limit {
                // Each token is milliseconds of synchronous compute on a cooperative thread:
                // yielding lets the consumer of the stream (and its cancellation) run in between,
                // even when every other cooperative thread is busy.
                await Task.yield()
                try Task.checkCancellation()
                let token = loop.forcedToken ?? sampler.sample(&logits)
                last = token
                if await loop.emit(token) == .stop { break }
                if loop.generated == limit || sequence.tokens.count >= contextSize { break }
                logits = try sequence.append([token], wantLogits: true) ?? []
            }
            // Run the final token too, so the cache holds the whole response and the next turn
            // reuses all of it (an end-of-generation token usually ends the rendered turn).
            if let last, sequence.tokens.count < contextSize, !Task.isCancelled {
                _ = try sequence.append([last], wantLogits: false)
            }
            await loop.finish()
            await channel.send(.response(action: .updateUsage(input: input, output: loop.usage)))
        }

        /// The session's sequence (made on first use), removed from the state while in use.
        private func takeSequence(_ model: LocalLanguageModel) -> TokenSequence {
            let held = state.withLock { s -> TokenSequence? in
                defer { s.sequence = nil }
                return s.sequence
            }
            return held ?? TokenSequence(network: model.weights.network, contextSize: configuration.contextSize,
                                         threads: configuration.threads)
        }

        private func putBack(_ sequence: TokenSequence) {
            state.withLock { $0.sequence = sequence }
        }
    }
}

/// Turns sampled tokens into channel events and usage: tracks whether the model is thinking,
/// spends the thinking budget, and detokenizes reasoning and answer separately.
struct DecodeLoop {
    enum Phase { case start, thinking, answering }
    enum Outcome { case more, stop }

    let weights: ModelWeights
    let channel: LanguageModelExecutorGenerationChannel
    let thinkingBudget: Int
    let reasoningID = UUID().uuidString
    let responseID = UUID().uuidString
    private(set) var phase: Phase
    private(set) var generated = 0
    private(set) var reasoningTokens = 0
    private var thinkingTokens = 0
    private var reasoningText: StreamingDetokenizer
    private var answerText: StreamingDetokenizer

    init(weights: ModelWeights, channel: LanguageModelExecutorGenerationChannel, startsInsideThinking: Bool,
         thinkingBudget: Int) {
        self.weights = weights
        self.channel = channel
        self.thinkingBudget = thinkingBudget
        phase = startsInsideThinking ? .thinking : .start
        reasoningText = StreamingDetokenizer(tokenizer: weights.tokenizer)
        answerText = StreamingDetokenizer(tokenizer: weights.tokenizer)
    }

    var usage: Usage.Output { Usage.Output(totalTokenCount: generated, reasoningTokenCount: reasoningTokens) }

    /// `</think>` once the thinking budget is spent, else nil (sample).
    var forcedToken: Int32? {
        guard phase == .thinking, thinkingTokens >= thinkingBudget else { return nil }
        return weights.thinkMarkers?.close
    }

    /// Accounts for one generated token and sends its event.
    mutating func emit(_ token: Int32) async -> Outcome {
        generated += 1
        let endOfGeneration = weights.tokenizer.endOfGenerationIDs.contains(token)
        switch phase {
        case .start where token == weights.thinkMarkers?.open:
            phase = .thinking
            reasoningTokens += 1
            await channel.send(.reasoning(entryID: reasoningID, action: .appendText("", tokenCount: 1)))
            return .more
        case .thinking where endOfGeneration:
            // The model stopped without closing its think block: the end token is no thought.
            phase = .answering
            await channel.send(.reasoning(entryID: reasoningID, action: .appendText(reasoningText.flush(), tokenCount: 0)))
            await channel.send(.response(entryID: responseID, action: .appendText("", tokenCount: 1)))
            return .stop
        case .thinking:
            reasoningTokens += 1
            if token == weights.thinkMarkers?.close {
                phase = .answering
                await channel.send(.reasoning(entryID: reasoningID, action: .appendText(reasoningText.flush(), tokenCount: 1)))
                return .more
            }
            thinkingTokens += 1
            await channel.send(.reasoning(entryID: reasoningID, action: .appendText(reasoningText.append(token), tokenCount: 1)))
            return .more
        case .start, .answering:
            phase = .answering
            let text = endOfGeneration ? "" : answerText.append(token)
            await channel.send(.response(entryID: responseID, action: .appendText(text, tokenCount: 1)))
            return endOfGeneration ? .stop : .more
        }
    }

    /// Sends text still held back by the detokenizers.
    mutating func finish() async {
        let thought = reasoningText.flush()
        if !thought.isEmpty {
            await channel.send(.reasoning(entryID: reasoningID, action: .appendText(thought, tokenCount: 0)))
        }
        let rest = answerText.flush()
        if !rest.isEmpty {
            await channel.send(.response(entryID: responseID, action: .appendText(rest, tokenCount: 0)))
        }
    }
}
