#if canImport(Glibc)
import Glibc
#endif
import Architectures
import Engine
import GGUF
import Tokenizers

/// What `generate`, `perplexity` and `chat` load: the file, its tokenizer and the model.
struct LoadedModel {
    let file: GGUFFile
    let tokenizer: any Tokenizer
    let model: any CausalLanguageModel
    let loadSeconds: Double

    /// Options every model-running command accepts.
    static let valuedOptions: Set<String> = ["--model", "-m", "--threads", "-t", "--ctx", "-c", "--weights", "--kv"]

    init(_ args: Arguments) throws(UsageError) {
        guard let path = args.string("--model", "-m") else { throw UsageError("--model PATH is required") }
        let mode: WeightMode
        if let w = args.string("--weights") {
            guard let m = WeightMode(argument: w) else { throw UsageError("--weights: unknown format \(w)") }
            mode = m
        } else {
            mode = .native
        }
        let t0 = monotonicSeconds()
        do {
            file = try GGUFFile(path: path)
            tokenizer = try loadTokenizer(from: file)
            model = try loadModel(file, weights: mode)
        } catch {
            throw .load(path, error)
        }
        loadSeconds = monotonicSeconds() - t0
    }
}

/// `--kv f16|q8_0|mxfp8_e4m3` (default f16).
func kvFormat(_ args: Arguments) throws(UsageError) -> KVCacheFormat {
    guard let text = args.string("--kv") else { return .f16 }
    guard let format = KVCacheFormat(rawValue: text) else {
        throw UsageError("--kv: unknown format \(text) (f16, q8_0, mxfp8_e4m3)")
    }
    return format
}

/// `--threads` (default: all online cores).
func threadCount(_ args: Arguments) throws(UsageError) -> Int {
    try args.int("--threads", "-t", default: max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))), range: 1...256)
}

/// `--ctx` (default `fallback`, never above the model's trained context).
func contextSize(_ args: Arguments, model: any CausalLanguageModel, fallback: Int) throws(UsageError) -> Int {
    let trained = model.hyperparameters.trainedContext
    return try args.int("--ctx", "-c", default: min(fallback, trained), range: 1...trained)
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Formats `x` with one decimal.
func oneDecimal(_ x: Double) -> String {
    guard x.isFinite else { return "\(x)" }
    let r = (x * 10).rounded() / 10
    return "\(r)"
}
