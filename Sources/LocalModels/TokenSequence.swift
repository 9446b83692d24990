// One session's KV cache together with the tokens it holds, so prefix reuse can compare them.
import LanguageModelAPI
import Architectures
import Engine

/// The tokens whose keys and values are in a `ForwardState`; `tokens.count == cache.count`
/// always, including after a cancelled prefill.
///
/// Not thread-safe: an executor hands it to one request at a time.
final class TokenSequence: @unchecked Sendable {
    package let network: any CausalLanguageModel
    let state: ForwardState
    /// Where its forward passes run batched with other sequences of the model; nil: on the
    /// caller's thread, alone.
    let batcher: DecodeBatcher?
    private(set) var tokens: [Int32] = []
    /// How many leading tokens were prefilled as prompt rows (with nothing decoded before them):
    /// all a later prompt may reuse. A decoded token's KV rows are summed in decode's order, and at
    /// every layer past the first the rows after it depend on it, so reusing them would give other
    /// bits than prefilling the same tokens; they are prefilled again with the next prompt.
    private(set) var prefilled = 0
    /// One-token batch reused by `appendOne`, so decoding does not build an array per token.
    private var single: [Int32] = [0]

    init(network: any CausalLanguageModel, contextSize: Int, threads: Int, kvCache: KVCacheFormat = .f16,
         batcher: DecodeBatcher? = nil) {
        self.network = network
        self.batcher = batcher
        // 256-token prefill batches: big enough to amortise weight unpacking, small enough that
        // cancellation is checked often.
        state = network.makeState(contextSize: contextSize, maxBatch: min(contextSize, 256), kvFormat: kvCache)
        state.context.threads = threads
    }

    var capacity: Int { state.cache.capacity }

    /// Keeps the longest common prefix of the prefilled tokens and `prompt`, but at least one
    /// prompt token is left to run so the next token has logits: the cache then holds what
    /// prefilling `prompt` from scratch would have put there, bit for bit. Returns how many tokens
    /// were kept: none when a sliding-window layer already dropped positions the prefix's end
    /// still needs.
    func reuse(_ prompt: [Int32]) -> Int {
        let kept = state.cache.truncate(to: cachedPrefix(of: prompt))
        tokens.removeSubrange(kept...)
        prefilled = min(prefilled, kept)
        return kept
    }

    /// How many leading tokens of `prompt` `reuse` would keep if nothing were dropped (the
    /// common prefix with the prefilled tokens, short of `prompt`'s last token), without changing
    /// anything: how much of a prompt this cache already holds.
    func cachedPrefix(of prompt: [Int32]) -> Int {
        var common = 0
        while common < min(prefilled, prompt.count - 1) && tokens[common] == prompt[common] { common += 1 }
        return common
    }

    /// Runs `new` (prompt tokens, or one decoded token) after what is cached, a batch at a time,
    /// checking for cancellation between batches. Returns the logits after the last token when
    /// asked.
    /// - Throws: `CancellationError`; `LanguageModelError.contextSizeExceeded` when the machine
    ///   lacks the memory for the KV cache of the positions (the cache grows as the context fills).
    func append(_ new: [Int32], rows kind: RowKind = .prompt, wantLogits: Bool) throws -> [Float]? {
        var done = 0
        var logits: [Float]?
        while done < new.count {
            try Task.checkCancellation()
            // The whole input when it fits one batch (every decoded token): no copy.
            let batch = done == 0 && new.count <= state.maxBatch ? new : Array(new[done..<min(new.count, done + state.maxBatch)])
            do {
                try state.cache.reserve(upTo: tokens.count + batch.count)
            } catch {
                throw LanguageModelError.contextSizeExceeded(.init(
                    contextSize: capacity, tokenCount: tokens.count + batch.count, debugDescription: "\(error)"))
            }
            let last = done + batch.count == new.count
            let rows = wantLogits && last ? batch.count - 1..<batch.count : 0..<0
            let out = network.forward(batch, state: state, logitRows: rows, rows: kind)
            if kind == .prompt && prefilled == tokens.count { prefilled += batch.count }
            tokens += batch
            if !rows.isEmpty { logits = out?.copyRow(0) }
            done += batch.count
        }
        return logits
    }

    /// `append` of prompt tokens: in the batcher's passes when there is one (beside the other
    /// sequences' decoded rows and prompt chunks), one chunk of at most `maxBatch` (and the
    /// batcher's `promptRows`) tokens at a time, cancellation checked between them. The cache
    /// gets the same bits either way.
    func prefill(_ new: [Int32], wantLogits: Bool) async throws -> [Float]? {
        guard let batcher else { return try append(new, rows: .prompt, wantLogits: wantLogits) }
        var logits: [Float]?
        var done = 0
        while done < new.count {
            try Task.checkCancellation()
            let chunk = Array(new[done..<min(new.count, done + min(state.maxBatch, DecodeBatcher.promptRows))])
            done += chunk.count
            logits = try await batcher.prefill(chunk, state: state, wantLogits: wantLogits && done == new.count)
            if prefilled == tokens.count { prefilled += chunk.count }
            tokens += chunk
        }
        return logits
    }

    /// Runs one decoded `token` and returns the logits after it when asked: in the batcher's
    /// next decode step (beside the other sequences decoding there) when there is one, else
    /// alone. The logits are the same bits either way.
    func decode(_ token: Int32, wantLogits: Bool) async throws -> [Float]? {
        guard let batcher else { return try appendOne(token, wantLogits: wantLogits) }
        let logits = try await batcher.decode(token, state: state)
        tokens.append(token)
        return wantLogits ? logits : nil
    }

    /// `append([token], rows: .decoded, wantLogits:)` without a new array per token.
    func appendOne(_ token: Int32, wantLogits: Bool) throws -> [Float]? {
        single[0] = token
        return try append(single, rows: .decoded, wantLogits: wantLogits)
    }
}
