// Raw text completion: a prompt continued as is, without a chat template — what
// `quanta generate` and llama.cpp's `llama-completion` do. A Quanta addition beside FM27's
// session API, on the same decode loop (`DecodeLoop`) and the same batcher (`DecodeBatcher`).
import LanguageModelAPI
import Foundation
import Sampling
import Tokenizers

extension LocalLanguageModel {
    /// What a raw completion reports as it runs.
    public enum CompletionEvent: Sendable, Equatable {
        /// The prompt is in the KV cache: its token ids and the prefill time.
        case prefilled(promptTokens: [Int32], seconds: Double)
        /// One generated token and the text it completes (may be empty: part of a character,
        /// or an end-of-generation token).
        case token(Int32, text: String)
        /// Text held back until the end (the last tokens ended inside a character).
        case text(String)
        /// The end: every generated id, why it stopped, and the decode time (from the first
        /// generated token to the last).
        case finished(generatedTokens: [Int32], stop: GenerationStopReason, decodeSeconds: Double)
    }

    /// Continues `prompt`. The prompt is tokenized as llama.cpp's completion does: BOS added when
    /// the model wants it, special-token text (`<|im_start|>`) parsed into control tokens.
    /// Sampling uses `sampling` (nil = the model's) with `seed` (nil = the sampling's seed, else random); `maximumTokens` nil = until the
    /// context is full. With `logprobs`, each generated token's log-probability is handed to it
    /// before the token's event is yielded. Cancelling the consuming task (or ending the iteration) stops between
    /// prefill batches and before every token. `batched` (the default) runs the forward passes on
    /// the model's batcher, in one decode step with every session and completion decoding beside
    /// it, with the same bits as alone; false runs them on the calling task, for a process that
    /// has nothing to batch with (`quanta generate`): no thread hand-off and no allocation per token.
    /// - Throws (from the iteration): `LanguageModelError.contextSizeExceeded` when the prompt
    ///   does not fit, `InvalidGenerationOptionsError` for unusable settings, `CancellationError`.
    public func complete(_ prompt: String, maximumTokens: Int? = nil, sampling: SamplingDefaults? = nil,
                         seed: UInt64? = nil, logprobs: LogprobsRequest? = nil,
                         batched: Bool = true) -> AsyncThrowingStream<CompletionEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<CompletionEvent, any Error>.makeStream()
        let settings = sampling ?? configuration.sampling
        let configuration = executorConfiguration
        let loaded = self.loaded
        let task = Task {
            do {
                try await Self.runCompletion(prompt, maximumTokens: maximumTokens, sampling: settings, seed: seed, logprobs: logprobs, batched: batched,
                                             configuration: configuration, loaded: loaded) { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private static func runCompletion(_ prompt: String, maximumTokens: Int?, sampling: SamplingDefaults, seed: UInt64?,
                                      logprobs: LogprobsRequest?, batched: Bool,
                                      configuration: Executor.Configuration, loaded: LoadedModel,
                                      send: (CompletionEvent) -> Void) async throws {
        if let reason = sampling.invalidReason { throw InvalidGenerationOptionsError(reason: reason) }
        if let maximumTokens, maximumTokens < 1 {
            throw InvalidGenerationOptionsError(reason: "maximumTokens must be at least 1, got \(maximumTokens)")
        }
        let tokenizer = loaded.tokenizer
        let promptTokens = tokenizer.encode(prompt, addSpecial: true, parseSpecial: true)
        let contextSize = configuration.contextSize
        guard !promptTokens.isEmpty else {
            throw LanguageModelError.unsupportedTranscriptContent(.init(unsupportedContent: [], debugDescription: "the prompt is empty"))
        }
        guard promptTokens.count < contextSize else {
            throw LanguageModelError.contextSizeExceeded(.init(contextSize: contextSize, tokenCount: promptTokens.count))
        }
        // Batched: on the model's batcher, as chat requests are, so a completion's decode steps
        // share one forward pass with every session and server slot decoding beside it.
        let sequence = TokenSequence(network: loaded.network, contextSize: contextSize, threads: configuration.threads,
                                     kvCache: configuration.kvCache.format,
                                     batcher: batched ? loaded.batcher(threads: configuration.threads, contextSize: contextSize) : nil)
        let start = ContinuousClock.now
        let logits = try await sequence.prefill(promptTokens, wantLogits: true) ?? []
        send(.prefilled(promptTokens: promptTokens, seconds: seconds(since: start)))

        let options = GenerationOptions(samplingMode: nil, temperature: sampling.temperature)
        var sampler = Sampler(options.samplingParameters(defaults: sampling, fallbackSeed: seed ?? sampling.seed ?? UInt64.random(in: 0...UInt64.max)))
        for token in promptTokens { sampler.acceptPrompt(token) }
        let room = contextSize - promptTokens.count
        var decodeLoop = DecodeLoop(sequence: sequence, contextSize: contextSize, limit: min(maximumTokens ?? room, room),
                                       sampler: sampler)
        var text = StreamingDetokenizer(tokenizer: tokenizer)
        var generated: [Int32] = []
        let decodeStart = ContinuousClock.now
        let (_, stop) = try await decodeLoop.run(logits: logits, choose: { logits, _, sampler in
            guard let logprobs else { return sampler.sample(&logits) }
            let raw = logits
            let token = sampler.sample(&logits)
            logprobs.receive(TokenLogprob(token: token, logits: raw, top: logprobs.top, tokenizer: tokenizer))
            return token
        },
                                                emit: { token in
            generated.append(token)
            let end = tokenizer.endOfGenerationIDs.contains(token)
            send(.token(token, text: end ? "" : text.append(token)))
            return !end
        })
        let rest = text.flush()
        if !rest.isEmpty { send(.text(rest)) }
        send(.finished(generatedTokens: generated, stop: stop, decodeSeconds: seconds(since: decodeStart)))
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}
