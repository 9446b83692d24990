import LanguageModelAPI
import LocalModels
import Architectures
import Engine

/// Perplexity with llama.cpp's `llama-perplexity` protocol, so numbers are comparable:
/// the token stream is cut into ⌊n / context⌋ non-overlapping chunks (the tail is dropped); each
/// chunk starts from an empty cache at position 0; when the model adds BOS the chunk's first
/// token is *replaced* by BOS; only the second half is scored (logits at positions
/// context/2 … context−2 predict the next token); NLL is accumulated in double and
/// PPL = exp(mean NLL).
public struct PerplexityResult: Sendable {
    /// Cumulative perplexity after each chunk (llama.cpp's `[k]x` values).
    public var runningPerplexity: [Double] = []
    /// Negative log-likelihood of every scored token, in order.
    public var negativeLogLikelihoods: [Double] = []

    public var perplexity: Double { exp(mean) }
    /// llama.cpp's ± : PPL × sqrt((E[NLL²] − E[NLL]²) / (N − 1)).
    public var uncertainty: Double {
        let n = Double(negativeLogLikelihoods.count)
        guard n > 1 else { return 0 }
        let meanSquare = negativeLogLikelihoods.reduce(0) { $0 + $1 * $1 } / n
        return perplexity * max(0, (meanSquare - mean * mean) / (n - 1)).squareRoot()
    }
    private var mean: Double { negativeLogLikelihoods.reduce(0, +) / Double(max(1, negativeLogLikelihoods.count)) }
}

/// Errors of `perplexity`.
public enum PerplexityError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Fewer than one full chunk of tokens.
    case textTooShort(tokens: Int, context: Int)
    /// The context is too small to score anything (needs at least 4).
    case contextTooSmall(Int)
    /// The base log-probability file could not be written.
    case baseFile(LogProbabilityFileError)

    public var description: String {
        switch self {
        case let .textTooShort(tokens, context): return "the text has \(tokens) tokens; at least \(context) (one chunk) are needed"
        case let .contextTooSmall(c): return "context \(c) is too small for perplexity (minimum 4)"
        case let .baseFile(error): return error.description
        }
    }
}

/// Scores `tokens` (the whole text tokenized once with add-special on and parse-special off).
/// `bos` is the id to put at the start of every chunk, or nil for models that add no BOS.
/// `progress` is called after each chunk with its index and the result so far. With `base`, every
/// scored row is also written there (llama-perplexity's `--kl-divergence-base` file).
func perplexity(model: any CausalLanguageModel, tokens: [Int32], context: Int, bos: Int32?, threads: Int,
                kvFormat: KVCacheFormat = .f16, base: LogProbabilityWriter? = nil,
                progress: (Int, PerplexityResult) -> Void = { _, _ in }) throws(PerplexityError) -> PerplexityResult {
    guard context >= 4 else { throw .contextTooSmall(context) }
    let chunks = tokens.count / context
    guard chunks > 0 else { throw .textTooShort(tokens: tokens.count, context: context) }
    var result = PerplexityResult()
    try forEachScoredChunk(model: model, tokens: tokens, context: context, chunks: chunks, bos: bos, threads: threads,
                           kvFormat: kvFormat) { (c, chunk, logits) throws(PerplexityError) in
        for (row, position) in (context / 2..<context - 1).enumerated() {
            let values = logits.copyRow(row)
            result.negativeLogLikelihoods.append(negativeLogLikelihood(values, target: Int(chunk[chunk.startIndex + position + 1])))
            do throws(LogProbabilityFileError) { try base?.append(values) } catch { throw .baseFile(error) }
        }
        result.runningPerplexity.append(result.perplexity)
        progress(c, result)
    }
    return result
}

/// llama-perplexity's pass over `chunks` chunks of `context` tokens of `tokens`: each from an
/// empty cache, its first token replaced by `bos` when given, with the logits of positions
/// context/2 … context−2 (each predicting the token after it). `body` gets the chunk's index, its
/// tokens (as in `tokens`, before the BOS replacement) and those logits, one row per position.
func forEachScoredChunk<E: Error>(model: any CausalLanguageModel, tokens: [Int32], context: Int, chunks: Int, bos: Int32?,
                                  threads: Int, kvFormat: KVCacheFormat,
                                  _ body: (Int, ArraySlice<Int32>, Matrix) throws(E) -> Void) throws(E) {
    let state = model.makeState(contextSize: context, maxBatch: min(context, 512), kvFormat: kvFormat)
    state.context.threads = threads
    for c in 0..<chunks {
        let chunk = tokens[c * context..<(c + 1) * context]
        var input = Array(chunk)
        if let bos { input[0] = bos }
        state.cache.truncate(to: 0)
        guard let logits = model.forward(input, state: state, logitRows: context / 2..<context - 1) else { return }
        try body(c, chunk, logits)
    }
}

/// −log softmax(values)[target], in double.
func negativeLogLikelihood(_ values: [Float], target: Int) -> Double {
    let maxLogit = Double(values.max() ?? 0)
    var sum = 0.0
    for v in values { sum += exp(Double(v) - maxLogit) }
    return log(sum) - (Double(values[target]) - maxLogit)
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LocalLanguageModel {
    /// Perplexity of `text` with llama-perplexity's protocol (see `perplexity(model:...)`): the
    /// text is tokenized once with BOS as the model wants and special-token text left as text,
    /// then scored in chunks of `contextSize` tokens with this model's threads and KV cache type.
    /// `progress` is called after each chunk with its index, the chunk count and the result so far.
    /// `maximumChunks` limits the chunks scored (llama-perplexity's `--chunks`). With
    /// `baseFile`, the log-probabilities of every scored position are written there in
    /// llama-perplexity's `--kl-divergence-base` format, for `klDivergence(againstBase:)`.
    public func perplexity(of text: String, contextSize: Int, maximumChunks: Int? = nil, writingBaseTo baseFile: String? = nil,
                           progress: (_ chunk: Int, _ chunks: Int, PerplexityResult) -> Void = { _, _, _ in }) throws(PerplexityError) -> PerplexityResult {
        let tokenizer = loaded.tokenizer
        var tokens = tokenizer.encode(text, addSpecial: true, parseSpecial: false)
        let chunks = min(tokens.count / max(contextSize, 1), maximumChunks ?? .max)
        if chunks > 0 { tokens = Array(tokens.prefix(chunks * contextSize)) }
        var writer: LogProbabilityWriter?
        if let baseFile, chunks > 0 {
            do { writer = try LogProbabilityWriter(path: baseFile, contextSize: contextSize, vocabulary: loaded.network.hyperparameters.vocabulary, tokens: tokens) }
            catch { throw .baseFile(error) }
        }
        return try Evaluation.perplexity(model: loaded.network, tokens: tokens, context: contextSize,
                                     bos: tokenizer.addsBOS ? tokenizer.bosID : nil, threads: executorConfiguration.threads,
                                     kvFormat: configuration.kvCache.format, base: writer) { progress($0, chunks, $1) }
    }
}
