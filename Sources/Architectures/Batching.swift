import Engine

/// What every decoder here shares around its per-batch `step`: the state it needs, splitting the
/// tokens into batches of at most `maxBatch`, assigning positions after what the cache holds, and
/// running the final norm and output head only on the rows whose logits were asked for.
protocol BatchedForward: CausalLanguageModel {
    /// Final RMSNorm weight, [embedding].
    var outputNorm: [Float] { get }
    /// Output head, embedding → vocabulary.
    var output: WeightMatrix { get }
}

extension BatchedForward {
    public func makeState(contextSize: Int, maxBatch: Int, kvFormat: KVCacheFormat) -> ForwardState {
        let hp = hyperparameters
        return ForwardState(cache: KVCache(layers: hp.layers, capacity: contextSize, kvDim: hp.kvHeads * hp.headDim,
                                           format: kvFormat),
                            maxBatch: maxBatch, widestInput: max(hp.embedding, hp.heads * hp.headDim, hp.feedForward))
    }

    /// Final norm + output head for the first `rows` rows of `hidden`, into `logits`.
    func head(_ hidden: Matrix, rows: Int, state s: ForwardState, into logits: Matrix) {
        let xn = s.buffer("xn", columns: hyperparameters.embedding)
        Ops.rmsNorm(hidden, rows: rows, weight: outputNorm, eps: hyperparameters.rmsEps, into: xn)
        Ops.linear(xn, rows: rows, weight: output, into: logits, scratch: s.matmulScratch, threads: s.threads)
    }

    func forwardInBatches(_ tokens: [Int32], state s: ForwardState, logitRows: Range<Int>,
                          step: ([Int32], [Int], ForwardState) -> Void) -> Matrix? {
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
            step(batch, s.positions, s)
            s.cache.commit(upTo: start + done + n)
            // Rows of this batch whose logits were asked for, gathered to the top of "selected".
            let wanted = logitRows.clamped(to: done..<done + n)
            if let logits, !wanted.isEmpty {
                let x = s.buffer("x", columns: hyperparameters.embedding)
                let selected = s.buffer("selected", columns: hyperparameters.embedding)
                for (i, r) in wanted.enumerated() { Ops.copyRow(x, r - done, into: selected, i) }
                if wanted == logitRows {
                    head(selected, rows: wanted.count, state: s, into: logits)
                } else {
                    let out = s.logitsBuffer(rows: wanted.count, vocabulary: vocabulary, scratch: true)
                    head(selected, rows: wanted.count, state: s, into: out)
                    for i in 0..<wanted.count { Ops.copyRow(out, i, into: logits, wanted.lowerBound - logitRows.lowerBound + i) }
                }
            }
            done += n
        }
        return logits
    }
}

extension ForwardState {
    /// A logits matrix of exactly `rows` rows, kept for reuse (decode asks for 1 row every token).
    /// The returned matrix is overwritten by the next forward call on this state.
    func logitsBuffer(rows: Int, vocabulary: Int, scratch: Bool = false) -> Matrix {
        let key = rows * 2 + (scratch ? 1 : 0)
        if let m = logits[key] { return m }
        let m = Matrix(rows: rows, columns: vocabulary)
        logits[key] = m
        return m
    }
}
