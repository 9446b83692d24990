// The one decode loop: chat requests (`LocalLanguageModel.Executor`) and raw completions
// (`LocalLanguageModel.complete`, which `quanta generate` uses) both run it, so cancellation,
// limits and the KV bookkeeping exist once.
import LanguageModelAPI
import Sampling

/// Why generation stopped.
public enum GenerationStopReason: String, Sendable, Equatable {
    /// The model wrote an end-of-generation token, or a stop rule ended the answer.
    case endOfGeneration
    /// The token limit was reached.
    case length
    /// The context window is full.
    case contextFull
}

/// Samples tokens after a prefilled prompt until the caller's `emit` says stop, the limit, or
/// the end of the context. Checks for cancellation before every token. Each token but the last
/// runs through the model for the next one's logits; the last does not (no turn reuses a decoded
/// token's KV rows: `TokenSequence.prefilled`), so a reply of n tokens costs n − 1 forward passes.
struct DecodeLoop {
    let sequence: TokenSequence
    let contextSize: Int
    /// Most tokens to generate.
    let limit: Int
    var sampler: Sampler

    /// Runs the loop from the prompt's last logits. `choose` picks each token (it may mask or
    /// force; by default it samples); `emit` handles it and returns false to stop. Returns how
    /// many tokens were generated and why it stopped; throws `CancellationError` when cancelled.
    mutating func run(logits first: [Float],
                      choose: (inout [Float], _ remaining: Int, inout Sampler) -> Int32,
                      emit: (Int32) async -> Bool) async throws -> (generated: Int, stop: GenerationStopReason) {
        sequence.batcher?.beginDecoding()
        defer { sequence.batcher?.endDecoding() }
        var logits = first
        var generated = 0
        var stop = GenerationStopReason.length
        while generated < limit {
            // Each token is milliseconds of synchronous compute on a cooperative thread:
            // yielding lets the consumer of the stream (and its cancellation) run in between,
            // even when every other cooperative thread is busy.
            await Task.yield()
            try Task.checkCancellation()
            let token = choose(&logits, limit - generated, &sampler)
            sampler.accept(token)
            generated += 1
            if await !emit(token) { stop = .endOfGeneration; break }
            if generated == limit { break }
            if sequence.tokens.count >= contextSize { stop = .contextFull; break }
            logits = try await sequence.decode(token, wantLogits: true) ?? []
        }
        return (generated, stop)
    }
}
