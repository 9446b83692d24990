import Engine

/// One pre-norm decoder block: attention then feed-forward, each added to the residual stream
/// (times `residualScale`, Granite's multiplier; 1 elsewhere).
struct DecoderLayer {
    let attention: AttentionBlock
    let feedForward: FeedForwardBlock
}

/// The decoder every family here builds: token embedding (times `embeddingScale`) → layers →
/// final RMSNorm → output head (tied or not) → logits times `logitScale`. A family is the code
/// that reads its GGUF into one of these (see `ModelFamily`).
final class Decoder: CausalLanguageModel, @unchecked Sendable {
    let architecture: String
    let hyperparameters: Hyperparameters
    let tokenEmbedding: EmbeddingTable
    /// Multiplies the token embeddings (Gemma: √embedding; Granite: `embedding_scale`).
    let embeddingScale: Float
    let layers: [DecoderLayer]
    /// Multiplies each sub-block's output before the residual add (Granite's `residual_scale`).
    let residualScale: Float
    /// Final RMSNorm weight `[embedding]`.
    let outputNorm: [Float]
    /// embedding → vocabulary (the token embedding itself when tied).
    let output: WeightMatrix
    /// Multiplies the logits (Granite: 1 / `logit_scale`).
    let logitScale: Float

    init(architecture: String, hyperparameters: Hyperparameters, tokenEmbedding: EmbeddingTable, embeddingScale: Float = 1,
         layers: [DecoderLayer], residualScale: Float = 1, outputNorm: [Float], output: WeightMatrix, logitScale: Float = 1) {
        self.architecture = architecture
        self.hyperparameters = hyperparameters
        self.tokenEmbedding = tokenEmbedding
        self.embeddingScale = embeddingScale
        self.layers = layers
        self.residualScale = residualScale
        self.outputNorm = outputNorm
        self.output = output
        self.logitScale = logitScale
    }

    func makeState(contextSize: Int, maxBatch: Int, kvFormat: KVCacheFormat) -> ForwardState {
        let hp = hyperparameters
        // Sliding-window layers keep only their window plus one batch.
        return ForwardState(cache: KVCache(layers: hp.layers, capacity: contextSize, kvDim: hp.kvHeads * hp.headDim,
                                           format: kvFormat, windows: layers.map { $0.attention.window ?? 0 },
                                           maxBatch: maxBatch),
                            maxBatch: maxBatch, hyperparameters: hp)
    }

    /// One batch of at most `maxBatch` tokens; leaves the final hidden states in `x`.
    private func step(_ tokens: [Int32], _ c: StepContext) {
        let hp = hyperparameters, a = c.a
        tokenEmbedding.lookup(tokens, into: a.x, scale: embeddingScale)
        for (i, layer) in layers.enumerated() {
            layer.attention.run(layer: i, c, hp)
            if residualScale != 1 { c.scale(a.projected, by: residualScale) }
            c.add(a.projected, into: a.x)
            layer.feedForward.run(c, hp)
            if residualScale != 1 { c.scale(a.projected, by: residualScale) }
            c.add(a.projected, into: a.x)
        }
    }

    /// Several sequences' rows as one batch (see the protocol): the parts' rows stacked in order,
    /// each part a `RowSegment` of the workspace that stores and attends against its own cache.
    func forward(_ parts: [SequenceRows], workspace w: ForwardState) -> Matrix {
        precondition(!parts.isEmpty, "a batch of no sequences")
        precondition(!parts.contains { $0.state === w }, "the workspace cannot be one of the batch's states")
        precondition(Set(parts.map { ObjectIdentifier($0.state) }).count == parts.count, "a sequence twice in one batch")
        let m = parts.reduce(0) { $0 + $1.tokens.count }
        precondition(m <= w.maxBatch, "batch of \(m) rows, room for \(w.maxBatch)")
        let capacity = parts[0].state.cache.capacity
        var tokens: [Int32] = []
        tokens.reserveCapacity(m)
        w.positions.removeAll(keepingCapacity: true)
        w.segments.removeAll(keepingCapacity: true)
        for p in parts {
            let cache = p.state.cache, n = p.tokens.count
            precondition(n > 0 && n <= p.state.maxBatch, "a part of \(n) tokens, room for \(p.state.maxBatch)")
            precondition(cache.capacity == capacity, "the sequences of a batch share one context length")
            precondition(cache.count + n <= capacity, "sequence longer than the context")
            let positions = Array(cache.count..<cache.count + n)
            w.segments.append(RowSegment(cache: cache, rows: tokens.count..<tokens.count + n, positions: positions,
                                         kind: p.kind, of: w.activations))
            w.positions += positions
            tokens += p.tokens
        }
        defer { w.segments.removeAll(keepingCapacity: true) }
        step(tokens, StepContext(state: w, rows: m, positions: w.positions, kind: .decoded))
        for p in parts { p.state.cache.commit(upTo: p.state.cache.count + p.tokens.count) }
        // The last row of every part that asks, gathered to the top of `selected`.
        let a = w.activations
        var wanted = 0, end = 0
        for p in parts {
            end += p.tokens.count
            if p.wantsLogits {
                Ops.copyRow(a.x, end - 1, into: a.selected, wanted)
                wanted += 1
            }
        }
        let logits = w.batchLogitsBuffer(rows: max(wanted, 1), vocabulary: hyperparameters.vocabulary)
        if wanted > 0 { head(StepContext(state: w, rows: wanted, positions: w.positions, kind: .decoded), into: logits) }
        return logits
    }

    /// Final norm + output head for the first `rows` rows of `selected`, into `logits`.
    private func head(_ c: StepContext, into logits: Matrix) {
        let a = c.a
        c.rmsNorm(a.selected, outputNorm, eps: hyperparameters.rmsEps, into: a.xn)
        c.linear(a.xn, output, into: logits)
        if logitScale != 1 { c.scale(logits, by: logitScale) }
    }

    /// Splits the tokens into batches of at most `maxBatch`, assigns positions after what the
    /// cache holds, and runs the head only on the rows whose logits were asked for.
    func forward(_ tokens: [Int32], state s: ForwardState, logitRows: Range<Int>, rows kind: RowKind) -> Matrix? {
        let vocabulary = hyperparameters.vocabulary
        precondition(logitRows.lowerBound >= 0 && logitRows.upperBound <= tokens.count, "logit rows outside the batch")
        let start = s.cache.count
        precondition(start + tokens.count <= s.cache.capacity, "sequence longer than the context")
        let logits = logitRows.isEmpty ? nil : s.logitsBuffer(rows: logitRows.count, vocabulary: vocabulary)
        var done = 0
        while done < tokens.count {
            let n = min(s.maxBatch, tokens.count - done)
            let batch = n == tokens.count ? tokens : Array(tokens[done..<done + n])
            s.positions.removeAll(keepingCapacity: true)
            s.positions.append(contentsOf: start + done..<start + done + n)
            step(batch, StepContext(state: s, rows: n, positions: s.positions, kind: kind))
            s.cache.commit(upTo: start + done + n)
            // Rows of this batch whose logits were asked for, gathered to the top of `selected`.
            let wanted = logitRows.clamped(to: done..<done + n)
            if let logits, !wanted.isEmpty {
                let a = s.activations
                for (i, r) in wanted.enumerated() { Ops.copyRow(a.x, r - done, into: a.selected, i) }
                let c = StepContext(state: s, rows: wanted.count, positions: s.positions, kind: kind)
                if wanted == logitRows {
                    head(c, into: logits)
                } else {
                    let out = s.logitsBuffer(rows: wanted.count, vocabulary: vocabulary, scratch: true)
                    head(c, into: out)
                    for i in 0..<wanted.count { Ops.copyRow(out, i, into: logits, wanted.lowerBound - logitRows.lowerBound + i) }
                }
            }
            done += n
        }
        return logits
    }
}
