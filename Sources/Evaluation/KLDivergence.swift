import LanguageModelAPI
import LocalModels
import Architectures
import Engine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value with llama.cpp's ± (one standard error).
public struct Estimate: Sendable, Equatable {
    public var value: Double
    public var uncertainty: Double
}

/// How far a model's next-token distributions are from a base run's, as `llama-perplexity
/// --kl-divergence` measures it (same sums, same float/double steps, same statistics), over the
/// scored positions of a `LogProbabilityFile`: per position the KL divergence
/// Σ p_base·(log p_base − log p) over tokens with log p_base > −16, the top-token agreement, and
/// Δp = p(target) − p_base(target).
public struct KLDivergenceStatistics: Sendable {
    var sumNLL = 0.0, sumNLL2 = 0.0, sumBaseNLL = 0.0, sumBaseNLL2 = 0.0, sumNLLTimesBase = 0.0
    var sumKLD = 0.0, sumKLD2 = 0.0, sumPDiff = 0.0, sumPDiff2 = 0.0, sumPDiff4 = 0.0
    /// Positions scored.
    public private(set) var count = 0
    /// Positions where the model's top token is the base's.
    public private(set) var sameTop = 0
    /// KL divergence of every scored position, in order.
    public private(set) var divergences: [Float] = []
    /// Δp of every scored position, in order.
    public private(set) var probabilityDifferences: [Float] = []

    /// Adds one position: the model's `logits` row, the base row starting at `start` of `rows`,
    /// and the token that followed.
    mutating func add(logits: [Float], baseRows rows: [UInt16], at start: Int, target: Int) {
        var maxLogit = logits[0], top = 0
        for (i, v) in logits.enumerated() where v > maxLogit { (maxLogit, top) = (v, i) }
        var sumExp = 0.0
        for v in logits { sumExp += Double(expf(v - maxLogit)) }
        let logSumExp = Float(log(sumExp))
        let (scale, minimum) = LogProbabilityFile.header(of: rows, at: start)
        let q = start + 4

        let nll: Float = maxLogit + logSumExp - logits[target]
        let baseNLL: Float = -(scale * Float(rows[q + target]) + minimum)
        sumNLL += Double(nll); sumNLL2 += Double(nll * nll)
        sumBaseNLL += Double(baseNLL); sumBaseNLL2 += Double(baseNLL * baseNLL)
        sumNLLTimesBase += Double(nll * baseNLL)

        let logNormalizer = maxLogit + logSumExp
        var divergence = 0.0, baseTop = -1, baseTopLog: Float = 0
        for i in 0..<logits.count {
            let baseLog = scale * Float(rows[q + i]) + minimum
            if i == 0 || baseLog > baseTopLog { (baseTopLog, baseTop) = (baseLog, i) }
            if baseLog > -16 { divergence += Double(expf(baseLog) * (baseLog - logits[i] + logNormalizer)) }
        }
        sumKLD += divergence; sumKLD2 += divergence * divergence
        count += 1
        if top == baseTop { sameTop += 1 }

        let difference = expf(-nll) - expf(-baseNLL)
        sumPDiff += Double(difference)
        let squared = Double(difference * difference)
        sumPDiff2 += squared; sumPDiff4 += squared * squared
        divergences.append(Float(divergence))
        probabilityDifferences.append(difference)
    }

    /// llama.cpp's mean ± standard error of a sum and its sum of squares (0 uncertainty under 11 values).
    private func mean(_ sum: Double, _ sum2: Double) -> Estimate {
        guard count > 0 else { return Estimate(value: 0, uncertainty: 0) }
        let n = Double(count), m = sum / n, variance = sum2 / n - m * m
        return Estimate(value: m, uncertainty: variance > 0 && count > 10 ? (variance / (n - 1)).squareRoot() : 0)
    }

    private var logPerplexity: Estimate { mean(sumNLL, sumNLL2) }
    private var baseLogPerplexity: Estimate { mean(sumBaseNLL, sumBaseNLL2) }
    private var logPerplexityCovariance: Double {
        guard count >= 10 else { return 0 }
        let n = Double(count)
        return (sumNLLTimesBase / n - (sumNLL / n) * (sumBaseNLL / n)) / (n - 1)
    }

    /// PPL(Q), the model's perplexity on the base file's tokens.
    public var perplexity: Estimate { let l = logPerplexity; return Estimate(value: exp(l.value), uncertainty: exp(l.value) * l.uncertainty) }
    /// PPL(base), from the base file's log-probabilities.
    public var basePerplexity: Estimate { let l = baseLogPerplexity; return Estimate(value: exp(l.value), uncertainty: exp(l.value) * l.uncertainty) }
    /// Cor(ln PPL(Q), ln PPL(base)).
    public var logPerplexityCorrelation: Double { logPerplexityCovariance / (logPerplexity.uncertainty * baseLogPerplexity.uncertainty) }
    /// ln(PPL(Q)/PPL(base)).
    public var logPerplexityRatio: Estimate {
        let a = logPerplexity, b = baseLogPerplexity
        return Estimate(value: a.value - b.value,
                        uncertainty: max(0, a.uncertainty * a.uncertainty + b.uncertainty * b.uncertainty - 2 * logPerplexityCovariance).squareRoot())
    }
    /// PPL(Q)/PPL(base).
    public var perplexityRatio: Estimate { let r = logPerplexityRatio; return Estimate(value: exp(r.value), uncertainty: exp(r.value) * r.uncertainty) }
    /// PPL(Q) − PPL(base).
    public var perplexityDifference: Estimate {
        let q = perplexity, b = basePerplexity, covariance = q.value * b.value * logPerplexityCovariance
        return Estimate(value: q.value - b.value,
                        uncertainty: max(0, q.uncertainty * q.uncertainty + b.uncertainty * b.uncertainty - 2 * covariance).squareRoot())
    }
    /// Mean KL divergence.
    public var meanDivergence: Estimate { mean(sumKLD, sumKLD2) }
    /// Mean Δp.
    public var meanProbabilityDifference: Estimate { mean(sumPDiff, sumPDiff2) }
    /// RMS of Δp.
    public var rmsProbabilityDifference: Estimate {
        let squared = mean(sumPDiff2, sumPDiff4), rms = squared.value.squareRoot()
        return Estimate(value: rms, uncertainty: rms > 0 ? 0.5 / rms * squared.uncertainty : 0)
    }
    /// Fraction of positions whose top token is the base's.
    public var sameTopFraction: Estimate {
        let p = Double(sameTop) / Double(max(count, 1))
        return Estimate(value: p, uncertainty: count > 1 ? (p * (1 - p) / Double(count - 1)).squareRoot() : 0)
    }

    /// llama.cpp's percentile: linear interpolation between the sorted values around
    /// fraction·(n − 1); the median is the middle value or the mean of the middle two.
    public static func percentile(_ sorted: [Float], _ fraction: Float) -> Float {
        guard let first = sorted.first, let last = sorted.last else { return .nan }
        if fraction <= 0 { return first }
        if fraction >= 1 { return last }
        let p = fraction * Float(sorted.count - 1), i = Int(p), t = p - Float(i)
        return (1 - t) * sorted[i] + t * sorted[min(i + 1, sorted.count - 1)]
    }

    /// The middle of `sorted` (the mean of the middle two for an even count).
    public static func median(_ sorted: [Float]) -> Float {
        guard !sorted.isEmpty else { return .nan }
        let n = sorted.count
        return n % 2 == 0 ? 0.5 * (sorted[n / 2] + sorted[n / 2 - 1]) : sorted[n / 2]
    }
}

/// Scores the base file's chunks with `model` as `llama-perplexity --kl-divergence` does (the
/// chunk's first token replaced by `bos` when the model adds one, the second half scored) and
/// compares every scored position with the base row. `progress` is called after each chunk.
func klDivergence(model: any CausalLanguageModel, base: LogProbabilityFile, bos: Int32?, threads: Int,
                  kvFormat: KVCacheFormat = .f16, maximumChunks: Int? = nil,
                  progress: (Int, KLDivergenceStatistics) -> Void = { _, _ in }) throws(LogProbabilityFileError) -> KLDivergenceStatistics {
    let context = base.contextSize, width = base.rowWidth
    guard model.hyperparameters.vocabulary == base.vocabulary else {
        throw .vocabularyMismatch(file: base.vocabulary, model: model.hyperparameters.vocabulary)
    }
    guard context <= model.hyperparameters.trainedContext else { throw .contextTooLong(file: context, model: model.hyperparameters.trainedContext) }
    var statistics = KLDivergenceStatistics()
    try forEachScoredChunk(model: model, tokens: base.tokens, context: context, chunks: min(base.chunks, maximumChunks ?? .max),
                           bos: bos, threads: threads, kvFormat: kvFormat) { (c, chunk, logits) throws(LogProbabilityFileError) in
        let rows = try base.rows(ofChunk: c)
        for (row, position) in (context / 2..<context - 1).enumerated() {
            statistics.add(logits: logits.copyRow(row), baseRows: rows, at: row * width, target: Int(chunk[chunk.startIndex + position + 1]))
        }
        progress(c, statistics)
    }
    return statistics
}

extension LocalLanguageModel {
    /// This model against a base log-probability file written by `llama-perplexity
    /// --kl-divergence-base` or by `perplexity(of:contextSize:writingBaseTo:)`: the file's tokens,
    /// chunked at the file's context, with this model's threads and KV cache type; at most
    /// `maximumChunks` chunks when given.
    public func klDivergence(againstBase path: String, maximumChunks: Int? = nil,
                             progress: (_ chunk: Int, _ chunks: Int, KLDivergenceStatistics) -> Void = { _, _, _ in }) throws(LogProbabilityFileError) -> KLDivergenceStatistics {
        let base = try LogProbabilityFile(path: path)
        let tokenizer = loaded.tokenizer
        return try Evaluation.klDivergence(model: loaded.network, base: base, bos: tokenizer.addsBOS ? tokenizer.bosID : nil,
                                       threads: executorConfiguration.threads, kvFormat: configuration.kvCache.format,
                                       maximumChunks: maximumChunks) { progress($0, min(base.chunks, maximumChunks ?? .max), $1) }
    }
}
