#if canImport(Glibc)
import Glibc
#endif
import CommandLineSpec
import Evaluation
import Foundation
import Quanta

/// What every model-running command (`generate`, `chat`, `perplexity`) reads from its options
/// and loads: one `LocalLanguageModel`, through the library like any other client.
struct ModelSetup {
    let model: LocalLanguageModel
    let loadSeconds: Double

    /// Loads the `-m` model with `-c`, `-t`, `--weights`, `-ctk`/`-ctv` and `sampling`. A `-c`
    /// above the model's trained length is an error for every command (never silently clamped);
    /// `-c 0` is the trained length, as in llama.cpp; without `-c` the window is
    /// min(`defaultContext`, trained length).
    init(_ args: ParsedArguments, defaultContext: Int, sampling: LocalLanguageModel.SamplingDefaults = .init()) async throws(UsageError) {
        guard let path = args.string(CommonOptions.model) else { throw UsageError("-m/--model PATH is required") }
        var configuration = LocalLanguageModel.Configuration(sampling: sampling)
        if let text = args.string(CommonOptions.weights) {
            guard let format = LocalLanguageModel.WeightFormat(argument: text) else {
                throw UsageError("--weights: unknown format \(text) (\(LocalLanguageModel.WeightFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            configuration.weights = format
        }
        if let text = args.string(CommonOptions.kvCache) {
            guard let type = LocalLanguageModel.KVCacheType(argument: text) else {
                throw UsageError("KV cache type: unknown \(text) (\(LocalLanguageModel.KVCacheType.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            configuration.kvCache = type
        }
        configuration.threads = try args.int(CommonOptions.threads, default: max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))), range: 1...256)
        let requested = try args.int(CommonOptions.contextSize(default: defaultContext), default: defaultContext, range: 0...Int.max)
        // The library clamps the window to the trained length, which makes `-c 0` the whole of
        // it; a larger explicit `-c` is refused instead (below).
        configuration.contextSize = requested == 0 ? Int.max : requested
        let t0 = monotonicSeconds()
        do {
            model = try await LocalLanguageModel(contentsOf: URL(fileURLWithPath: path), configuration: configuration)
        } catch {
            throw .load(path, error)
        }
        guard requested <= model.trainedContextSize else {
            throw UsageError("-c \(requested) is more than the model's trained context of \(model.trainedContextSize) tokens",
                             isArgumentError: false)
        }
        loadSeconds = monotonicSeconds() - t0
    }
}

/// The sampling options `generate` and `chat` share, with llama.cpp's defaults except for the
/// temperature each command chooses (`generate` is greedy by default, for reproducible output).
func samplingDefaults(_ args: ParsedArguments, temperature: Double) throws(UsageError) -> LocalLanguageModel.SamplingDefaults {
    let defaults = LocalLanguageModel.SamplingDefaults()
    return LocalLanguageModel.SamplingDefaults(
        temperature: try args.double(CommonOptions.temperature(default: temperature), default: temperature, range: 0...100),
        topK: try args.int(CommonOptions.topK, default: defaults.topK, range: 0...1_000_000),
        topP: try args.double(CommonOptions.topP, default: defaults.topP, range: 0.000001...1),
        minP: try args.double(CommonOptions.minP, default: defaults.minP, range: 0...1),
        repetitionPenalty: try args.double(CommonOptions.repeatPenalty, default: defaults.repetitionPenalty, range: 0.01...100),
        repetitionWindow: try args.int(CommonOptions.repeatLastN, default: defaults.repetitionWindow, range: 0...1_000_000))
}

/// `-s/--seed`: -1 = random.
func seedOption(_ args: ParsedArguments, default value: Int) throws(UsageError) -> UInt64? {
    let n = try args.int(CommonOptions.seed(default: value), default: value, range: -1...Int.max)
    return n < 0 ? nil : UInt64(n)
}

/// `-n/--n-predict`: -1 = until the context is full (nil).
func predictCount(_ args: ParsedArguments, default value: Int) throws(UsageError) -> Int? {
    let n = try args.int(CommonOptions.predict(default: value), default: value, range: -1...1_000_000_000)
    guard n != 0 else { throw UsageError("-n must be -1 or at least 1") }
    return n < 0 ? nil : n
}

/// Parses `argv` for `spec`; prints the usage and returns nil on `-h`. Each ignored llama.cpp
/// option gets its note on stderr, one line.
func parse(_ spec: CommandSpec, _ argv: [String]) throws(UsageError) -> ParsedArguments? {
    guard let args = try spec.parse(argv) else {
        print(spec.usage, terminator: "")
        return nil
    }
    for note in args.notes { printError("quanta: note: \(note)\n") }
    return args
}

/// Reports a failed command in one line; an argument mistake points to the command's `--help`.
func fail(_ error: UsageError, _ spec: CommandSpec) -> Int32 {
    fail(error.line(for: spec))
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
