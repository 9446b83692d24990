#if canImport(Glibc)
import Glibc
#endif
import Architectures
import CommandLineSpec
import Engine
import GGUF
import Grammar
import SyntheticModels

let defaultModelPath = "Models/SmolLM2-135M-Instruct.Q4_1.gguf"

private let modelOption = OptionSpec(["-m", "--model"], value: "PATH", "a GGUF model; repeat for several (default \(defaultModelPath))",
                                     repeats: true)
private let syntheticOption = OptionSpec(
    ["--synthetic"], value: "SHAPE[:TYPE[,TYPE...]]",
    "a random-weight model of a published shape and llama.cpp type mix, written once to the cache; repeat for several "
        + "(shapes: \(SyntheticShape.presets.map(\.name).joined(separator: ", ")); types: \(QuantMix.allCases.map(\.rawValue).joined(separator: ", ")))",
    repeats: true)
private let syntheticDirectoryOption = OptionSpec(["--synthetic-dir"], value: "DIR",
                                                  "where --synthetic models are kept (default $XDG_CACHE_HOME/quanta/synthetic or ~/.cache/quanta/synthetic)")
private let promptOption = OptionSpec(["-p", "--n-prompt"], value: "N[,N...]", "prefill sizes, a ppN test each (default 512; 0 = none)")
private let generationOption = OptionSpec(["-n", "--n-gen"], value: "N[,N...]", "generation lengths, a tgN test each (default 128; 0 = none)")
private let repetitionsOption = OptionSpec(["-r", "--repetitions"], value: "N", "timed runs of each test after its warm-up (default 5)")
private let threadsOption = OptionSpec(["-t", "--threads"], value: "N[,N...]", "thread counts, every test at each (default: every online core)")
private let depthOption = OptionSpec(["-d", "--depth"], value: "N[,N...]", "tokens cached before each test, every test at each (default 0)")
private let weightsOption = OptionSpec(["--weights"], value: "FORMAT", "native|f32|f16|bf16|mxint8|mxfp8_e4m3|mxfp8_e5m2|mxfp4 (default native)")
private let kvOption = OptionSpec(["--kv"], value: "TYPE[,TYPE...]", "K/V cache formats f16|q8_0|mxfp8_e4m3, every test with each (default f16)")
private let parallelOption = OptionSpec(["-np", "--parallel"], value: "N[,N...]",
                                        "sequences decoded together: a tgN x N test beside each tgN for each N > 1 (aggregate tok/s)")
private let schemaOption = OptionSpec(["--schema"], "add tgN+schema beside each tgN (guided generation)")
private let jsonOption = OptionSpec(["--json"], "one JSON object per row instead of the table")
private let compareOption = OptionSpec(["--compare-llama-cpp"], "run llama-bench on the same tests, interleaved with ours")

let modelBenchSpec = CommandSpec(
    program: "bench", name: "",
    summary: "Model throughput with llama-bench's pp/tg tests. Other suites: bench kernels|tokenizer|dequant|serve, each with --help.",
    options: [modelOption, syntheticOption, syntheticDirectoryOption, promptOption, generationOption, repetitionsOption, threadsOption, depthOption, weightsOption, kvOption,
              parallelOption, schemaOption, jsonOption, compareOption] + IgnoredBenchOptions.all,
    notes: """
    ppN prefills N tokens into an empty cache (one batch, logits of the last row), tgN generates N tokens one at a
    time (logits every step). Each test runs once to warm up, then -r times; tok/s is reported as mean ± stddev.
    --depth fills the cache with N tokens first; a list runs every test at each depth (its own rows, named "@ dN"
    when N > 0). A --kv list runs every test with each format in turn, one row per format (named "kv q8_0"...), and
    ends with each format's tok/s over the first one's, test by test. --schema masks every step of tgN+schema with a
    JSON schema's token mask and prints the masking time per token and its share.
    --parallel N adds tgT x N: N sequences, each at --depth, decode T tokens each in batched steps (one forward
    pass runs every sequence's next token at m = N rows, as quanta serve's slots run), reported as the aggregate
    tok/s of all N; its ratio to tgT's tok/s is the engine's batching speed-up, without HTTP or sampling.
    --synthetic writes (once; later runs reuse the file) a GGUF with the shape, keys and per-tensor types a llama.cpp
    quantization of that model has, random weights scaled so activations stay finite, and a made-up vocabulary of the
    right size: every byte a token reads is read as in the real model, the text is noise.
    --compare-llama-cpp runs llama-bench (from PATH or $LLAMA_BENCH) on the same model, threads and tests,
    interleaved with ours, with flash attention on and, for --kv q8_0, its q8_0 K and V cache (-fa 1 -ctk q8_0
    -ctv q8_0; llama.cpp has no MXFP8 cache, so --kv mxfp8_e4m3 compares with its f16), and prints the ratio.
    tgN rows give the decode roofline: the tokens/s of streaming the weights plus the K/V bytes attention reads per
    token at the streaming read rate measured right after the row's runs, and the share of it reached. Peak RSS is
    ours, a running maximum over the whole run (bench one model per run to see a model's alone), and with
    --compare-llama-cpp the largest peak of the model's llama-bench processes.
    """)

/// llama-bench options that change nothing here: accepted (lists, as llama-bench takes them)
/// with a note.
enum IgnoredBenchOptions {
    static let all = [
        OptionSpec.ignored(["-ngl", "--n-gpu-layers"], value: "N[,N...]", check: ValueCheck.integer.commaSeparated,
                           "Quanta runs on the CPU; there are no GPU layers"),
        OptionSpec.ignored(["-b", "--batch-size"], value: "N[,N...]", check: ValueCheck.integer.commaSeparated,
                           "Quanta sizes its prefill batches itself"),
        OptionSpec.ignored(["-fa", "--flash-attn"], value: "0|1", check: ValueCheck.onOffAuto.commaSeparated,
                           "Quanta's attention is always fused (tiled, online softmax)"),
        OptionSpec.ignored(["-lm", "--load-mode"], value: "MODE[,MODE...]", check: ValueCheck.loadMode.commaSeparated,
                           "Quanta loads one way: the weights are repacked into its own memory and the file is unmapped"),
    ]
}

struct ModelBenchOptions {
    var models: [String]
    var synthetic: [SyntheticModel]
    var syntheticDirectory: String
    var prompts: [Int]
    var generations: [Int]
    var repetitions: Int
    var threads: [Int]
    /// Cached tokens before each test; every test runs at each depth in turn.
    var depths: [Int]
    var json: Bool
    var compare: Bool
    var schema: Bool
    /// Sequence counts above 1 for the batched decode tests (tgN x P).
    var parallel: [Int]
    var weights: WeightMode
    /// K/V cache formats; every test runs with each in turn.
    var kvs: [KVCacheFormat]

    init(_ args: ParsedArguments) throws(UsageError) {
        models = args.strings(modelOption)
        synthetic = []
        for spec in args.strings(syntheticOption) {
            do throws(SyntheticSpecError) { synthetic += try SyntheticModel.parse(spec) } catch {
                throw UsageError("--synthetic: \(error)")
            }
        }
        syntheticDirectory = args.string(syntheticDirectoryOption) ?? SyntheticCache.defaultDirectory
        if models.isEmpty && synthetic.isEmpty { models = [defaultModelPath] }
        prompts = try args.ints(promptOption, default: [512], range: 0...1_000_000).filter { $0 > 0 }
        generations = try args.ints(generationOption, default: [128], range: 0...1_000_000).filter { $0 > 0 }
        repetitions = try args.int(repetitionsOption, default: 5, range: 1...1_000_000)
        // Default: every online core, as llama-bench does.
        threads = try args.ints(threadsOption, default: [max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))], range: 1...4096)
        depths = try args.ints(depthOption, default: [0], range: 0...100_000_000)
        json = args.has(jsonOption)
        compare = args.has(compareOption)
        schema = args.has(schemaOption)
        parallel = try args.ints(parallelOption, default: [], range: 1...64).filter { $0 > 1 }
        weights = .native
        if let w = args.string(weightsOption) {
            guard let mode = WeightMode(argument: w) else { throw UsageError("--weights: unknown format \(w)") }
            weights = mode
        }
        kvs = [.f16]
        if let text = args.string(kvOption) {
            kvs = []
            for k in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let format = KVCacheFormat(rawValue: String(k)) else { throw UsageError("--kv: unknown format '\(k)'") }
                kvs.append(format)
            }
        }
    }
}

/// One measured test: tok/s of every repetition.
struct Measurement {
    let model: String, test: String, threads: Int
    let samples: [Double]
    var mean: Double { meanAndStddev(samples).mean }
    var stddev: Double { meanAndStddev(samples).stddev }
}

func runModelBench(_ args: [String]) -> Int32 {
    withArguments(modelBenchSpec, args) { (args) throws(UsageError) -> Int32 in runModelBench(try ModelBenchOptions(args)) }
}

func runModelBench(_ options: ModelBenchOptions) -> Int32 {
    let llamaBench = options.compare ? LlamaBench.locate() : nil
    if options.compare && llamaBench == nil {
        printError("bench: --compare-llama-cpp: llama-bench not found on PATH or in $LLAMA_BENCH; comparison unavailable\n")
    }
    var paths = options.models
    for model in options.synthetic {
        guard let path = materialize(model, in: options.syntheticDirectory) else { return 1 }
        paths.append(path)
    }
    if !options.json { printTableHeader(compare: llamaBench != nil) }
    for path in paths {
        let t0 = now()
        let model: any CausalLanguageModel, file: GGUFFile
        do {
            file = try GGUFFile(path: path)
            model = try loadModel(file, weights: options.weights)
        } catch {
            printError("bench: \(path): \(error)\n")
            return 1
        }
        let loadSeconds = now() - t0
        if !options.models.contains(path), let bad = nonFiniteLogitRow(model) {
            printError("bench: \(path): NaN or inf in the logits of synthetic token \(bad); the random scales are wrong for this shape\n")
            return 1
        }
        let headDim = model.hyperparameters.headDim
        if let kv = options.kvs.first(where: { !$0.supports(headDim: headDim) }) {
            printError("bench: \(path): --kv \(kv) needs a head dimension that is a multiple of 32; this model's is \(headDim)\n")
            return 1
        }
        let info = ModelInfo(path: path, file: file)
        var tests: [(name: String, depth: Int, kv: KVCacheFormat, run: (Int) -> Double)] = []
        for depth in options.depths {
            for p in options.prompts {
                for kv in options.kvs { tests.append(("pp\(p)", depth, kv, { threads in prefill(model, tokens: p, depth: depth, threads: threads, kv: kv) })) }
            }
            for n in options.generations {
                for kv in options.kvs { tests.append(("tg\(n)", depth, kv, { threads in generate(model, tokens: n, depth: depth, threads: threads, kv: kv) })) }
                for p in options.parallel {
                    for kv in options.kvs {
                        tests.append(("tg\(n) x \(p)", depth, kv, { threads in
                            generateBatched(model, tokens: n, sequences: p, depth: depth, threads: threads, kv: kv)
                        }))
                    }
                }
            }
        }
        if options.schema {
            let vocabulary: TokenVocabulary
            do { vocabulary = try grammarVocabulary(file) } catch {
                printError("bench: \(path): \(error)\n")
                return 1
            }
            for depth in options.depths {
                for n in options.generations {
                    for kv in options.kvs {
                        tests.append(("tg\(n)+schema", depth, kv, { threads in
                            generateGuided(model, tokens: n, depth: depth, threads: threads, kv: kv, vocabulary: vocabulary)
                        }))
                    }
                }
            }
        }
        schemaMaskMicroseconds = []
        schemaStepMicroseconds = []
        var theirPeak: Double?   // largest llama-bench peak RSS on this model, MiB
        var kvMeans: [(test: String, kv: KVCacheFormat, mean: Double)] = []   // for the --kv list's ratios
        for threads in options.threads {
            for test in tests {
                let atDepth = test.depth > 0 ? "\(test.name) @ d\(test.depth)" : test.name
                let name = options.kvs.count > 1 ? "\(atDepth) kv \(test.kv.rawValue)" : atDepth
                printError("bench: \(info.name) \(name) t=\(threads): warm-up\n")
                _ = test.run(threads)
                // A decode test (its warm-up set the K/V bytes per token) reads the stream rate
                // right before its runs as well as right after them.
                let rateBefore = decodeKVBytesPerToken != nil ? Roofline.streamBytesPerSecond(threads: threads) : nil
                var samples: [Double] = []
                // llama-bench (no batched decode test: tgN x P rows stand alone) runs one
                // repetition right after each of ours, so the host's drift, up to 2x within
                // minutes here, reaches both sides of the ratio alike.
                let compared = llamaBench.flatMap { test.name.contains(" x ") ? nil : $0 }
                var theirRuns: [LlamaBench.Result] = []
                for r in 0..<options.repetitions {
                    printError("bench: \(info.name) \(name) t=\(threads): run \(r + 1)/\(options.repetitions)\n")
                    samples.append(test.run(threads))
                    if let compared {
                        printError("bench: llama-bench \(name) t=\(threads): run \(r + 1)/\(options.repetitions)\n")
                        if let run = compared.run(model: path, test: test.name, threads: threads, repetitions: 1, depth: test.depth, kv: test.kv) {
                            theirRuns.append(run)
                        }
                    }
                }
                let theirs = theirRuns.count == options.repetitions ? LlamaBench.Result(runs: theirRuns) : nil
                if let rss = theirs?.peakRSSMiB { theirPeak = max(theirPeak ?? 0, rss) }
                // Mean K/V bytes per decode token of the last run (set by generate), and the read
                // rate: the mean of the rates measured just before and just after the runs it is
                // compared with (the host's rate drifts by up to 2x within minutes).
                let weightBytes = Roofline.weightBytesPerToken(file, weights: options.weights)
                let roofline = decodeKVBytesPerToken.map { kv -> Double in
                    let after = Roofline.streamBytesPerSecond(threads: threads)
                    return Roofline.tokensPerSecond(readRate: rateBefore.map { ($0 + after) / 2 } ?? after,
                                                    weightBytes: weightBytes, kvBytes: kv)
                }
                decodeKVBytesPerToken = nil
                let m = Measurement(model: info.name, test: name, threads: threads, samples: samples)
                kvMeans.append(("\(atDepth) t=\(threads)", test.kv, m.mean))
                if options.json {
                    printJSON(m, info: info, loadSeconds: loadSeconds, llamaCpp: theirs,
                              roofline: roofline.map { (tokensPerSecond: $0, weightBytes: weightBytes) })
                } else {
                    printRow(m, info: info, llamaCpp: theirs, compare: llamaBench != nil, roofline: roofline)
                }
            }
        }
        if options.kvs.count > 1 && !options.json {
            print("\n\(info.name): tok/s against --kv \(options.kvs[0].rawValue), same run")
            for first in kvMeans where first.kv == options.kvs[0] {
                let others = kvMeans.filter { $0.test == first.test && $0.kv != first.kv }
                print("  \(first.test): " + others.map { "\($0.kv.rawValue) \(fixed($0.mean / first.mean, 2))x" }.joined(separator: ", "))
            }
        }
        if options.schema && !schemaMaskMicroseconds.isEmpty {
            let mask = schemaMaskMicroseconds.sorted(), step = schemaStepMicroseconds.sorted()
            print("\n\(info.name) schema masking (warm-up included): median \(fixed(median(mask), 1)) µs/token, "
                  + "p90 \(fixed(mask[mask.count * 9 / 10], 1)) µs, \(fixed(100 * mask.reduce(0, +) / step.reduce(0, +), 1)) % of "
                  + "guided decode time (median step \(fixed(median(step), 0)) µs)")
        }
        if !options.json {
            print("\n\(info.name): load \(fixed(loadSeconds, 3)) s, peak RSS \(fixed(peakRSSMiB(), 1)) MiB"
                  + (theirPeak.map { " (llama-bench: \(fixed($0, 1)) MiB)" } ?? "") + "\n")
        }
    }
    return 0
}

/// The cached file of a --synthetic model, written first when missing (progress on stderr); nil
/// after printing why it could not be written.
func materialize(_ model: SyntheticModel, in directory: String) -> String? {
    let path = SyntheticCache.path(of: model, in: directory)
    if access(path, R_OK) != 0 {
        printError("bench: writing \(model.spec) (\(fixed(Double(model.weightBytes) / 1_073_741_824, 2)) GiB) to \(path)\n")
    }
    do {
        return try SyntheticCache.materialize(model, in: directory).path
    } catch {
        printError("bench: --synthetic \(model.spec): \(error)\n")
        return nil
    }
}

/// The first of a few prompt positions whose logits are not all finite, or nil: a random-weight
/// model must not measure a NaN-filled forward.
func nonFiniteLogitRow(_ model: any CausalLanguageModel) -> Int? {
    let tokens = benchTokens(4, vocabulary: model.hyperparameters.vocabulary)
    let state = model.makeState(contextSize: tokens.count, maxBatch: tokens.count)
    guard let logits = model.forward(tokens, state: state, logitRows: 0..<tokens.count) else { return 0 }
    return (0..<tokens.count).first { !logits.copyRow($0).allSatisfy(\.isFinite) }
}

/// Deterministic token ids for benchmarking (what they are does not change the work).
func benchTokens(_ n: Int, vocabulary: Int) -> [Int32] {
    (0..<n).map { Int32(($0 &* 7919 &+ 13) % max(vocabulary, 1)) }
}

/// A state with room for `depth + tokens` positions whose cache already holds `depth` tokens
/// (filled untimed), so a test can run "at depth".
func stateAtDepth(_ model: any CausalLanguageModel, depth: Int, tokens: Int, threads: Int, kv: KVCacheFormat) -> ForwardState {
    let state = model.makeState(contextSize: depth + tokens, maxBatch: 512, kvFormat: kv)
    state.context.threads = threads
    if depth > 0 {
        _ = model.forward(benchTokens(depth, vocabulary: model.hyperparameters.vocabulary), state: state, logitRows: 0..<0)
    }
    return state
}

/// Times one `tokens`-long prefill batch after `depth` cached tokens.
func prefill(_ model: any CausalLanguageModel, tokens: Int, depth: Int, threads: Int, kv: KVCacheFormat) -> Double {
    let state = stateAtDepth(model, depth: depth, tokens: tokens, threads: threads, kv: kv)
    let batch = benchTokens(tokens, vocabulary: model.hyperparameters.vocabulary)
    let t0 = now()
    _ = model.forward(batch, state: state, logitRows: tokens - 1..<tokens)
    return Double(tokens) / (now() - t0)
}

/// Mean K/V cache bytes attention read per token in the last `generate` (nil after other tests).
nonisolated(unsafe) var decodeKVBytesPerToken: Double?

/// Times `tokens` single-token steps after `depth` cached tokens.
func generate(_ model: any CausalLanguageModel, tokens: Int, depth: Int, threads: Int, kv: KVCacheFormat) -> Double {
    let state = stateAtDepth(model, depth: depth, tokens: tokens, threads: threads, kv: kv)
    let ids = benchTokens(tokens, vocabulary: model.hyperparameters.vocabulary)
    let seen = state.cache.bytesSeen
    let t0 = now()
    for id in ids { _ = model.forward([id], state: state, logitRows: 0..<1) }
    let seconds = now() - t0
    decodeKVBytesPerToken = Double(state.cache.bytesSeen - seen) / Double(tokens)
    return Double(tokens) / seconds
}

/// Times `tokens` batched decode steps of `sequences` sequences, each after `depth` cached tokens
/// (the steps `quanta serve` runs with that many busy slots); aggregate tok/s of all sequences.
func generateBatched(_ model: any CausalLanguageModel, tokens: Int, sequences: Int, depth: Int, threads: Int, kv: KVCacheFormat) -> Double {
    let states = (0..<sequences).map { _ in stateAtDepth(model, depth: depth, tokens: tokens, threads: threads, kv: kv) }
    let workspace = model.makeWorkspace(rows: sequences)
    workspace.context.threads = threads
    let ids = benchTokens(tokens * sequences, vocabulary: model.hyperparameters.vocabulary)
    var seconds = 0.0
    for step in 0..<tokens {
        // Room for the step's row is made untimed, as the batcher does before each step.
        for s in states { try! s.cache.reserve(upTo: s.cache.count + 1) }
        let t0 = now()
        _ = model.forward(batch: Array(ids[step * sequences..<(step + 1) * sequences]), states: states, workspace: workspace)
        seconds += now() - t0
    }
    return Double(tokens * sequences) / seconds
}
