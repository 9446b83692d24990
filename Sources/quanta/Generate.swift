#if canImport(Glibc)
import Glibc
#endif
import Architectures
import Engine
import Sampling
import Tokenizers

let generateUsage = """
usage: quanta generate --model PATH --prompt TEXT [-n 64] [--temp 0] [--top-k 40] [--top-p 0.95]
                       [--min-p 0.05] [--repeat-penalty 1] [--seed 0] [--threads N] [--ctx N]
                       [--weights native|f32|mxint8|mxfp8_e4m3|mxfp8_e5m2|mxfp4]
                       [--kv f16|q8_0|mxfp8_e4m3] [--ids]
"""

/// `quanta generate`: streams a continuation of the prompt (tokenized with add-special and
/// parse-special on), stopping at an end-of-generation token, after -n tokens, at the end of the
/// context, or on Ctrl-C. `--ids` prints `{"prompt_ids": [...], "generated_ids": [...]}` instead
/// of text. A summary line goes to stderr.
func runGenerate(_ argv: [String]) -> Int32 {
    do throws(UsageError) {
        let args = try Arguments(argv, valued: LoadedModel.valuedOptions.union(
            ["--prompt", "-p", "-n", "--n-predict", "--temp", "--top-k", "--top-p", "--min-p", "--repeat-penalty", "--seed"]),
            flags: ["--ids"])
        guard let prompt = args.string("--prompt", "-p") else { throw UsageError("--prompt TEXT is required") }
        let maxTokens = try args.int("-n", "--n-predict", default: 64, range: 1...1_000_000)
        var sampling = SamplingParameters(
            temperature: try args.float("--temp", default: 0, range: 0...100),
            topK: try args.int("--top-k", default: 40, range: 0...1_000_000),
            topP: try args.float("--top-p", default: 0.95, range: 0.000001...1),
            minP: try args.float("--min-p", default: 0.05, range: 0...1),
            repetitionPenalty: try args.float("--repeat-penalty", default: 1, range: 0.01...100),
            seed: UInt64(try args.int("--seed", default: 0, range: 0...Int.max)))
        if sampling.temperature == 0 { sampling = SamplingParameters(temperature: 0, topK: 1, topP: 1, minP: 0, repetitionPenalty: sampling.repetitionPenalty) }
        let threads = try threadCount(args)
        let kv = try kvFormat(args)
        let loaded = try LoadedModel(args)
        let context = try contextSize(args, model: loaded.model, fallback: 4096)
        return generate(loaded, prompt: prompt, maxTokens: maxTokens, sampling: sampling, context: context,
                        threads: threads, kv: kv, idsOnly: args.has("--ids"))
    } catch {
        return fail(error.showsUsage ? "\(error.message)\n\(generateUsage)" : error.message)
    }
}

private func generate(_ loaded: LoadedModel, prompt: String, maxTokens: Int, sampling: SamplingParameters,
                      context: Int, threads: Int, kv: KVCacheFormat, idsOnly: Bool) -> Int32 {
    let tokenizer = loaded.tokenizer, model = loaded.model
    let promptIDs = tokenizer.encode(prompt, addSpecial: true, parseSpecial: true)
    guard !promptIDs.isEmpty else { return fail("the prompt is empty after tokenization") }
    guard promptIDs.count < context else {
        return fail("the prompt has \(promptIDs.count) tokens but the context holds \(context) (raise --ctx)")
    }
    installInterruptHandler()
    let batch = min(512, context)
    let state = model.makeState(contextSize: context, maxBatch: batch, kvFormat: kv)
    state.threads = threads
    do { try state.cache.reserve(upTo: promptIDs.count) } catch { return fail("\(error)") }
    var sampler = Sampler(sampling)
    for id in promptIDs { sampler.accept(id) }

    // One batch per call, so Ctrl-C is seen within one batch's time, not the whole prompt's.
    let t0 = monotonicSeconds()
    var prefilled = 0
    var logits: [Float] = []
    while prefilled < promptIDs.count {
        if interrupted != 0 {
            printError("quanta: interrupted during prefill (\(prefilled) of \(promptIDs.count) prompt tokens)\n")
            return 130
        }
        let n = min(batch, promptIDs.count - prefilled)
        let last = prefilled + n == promptIDs.count
        let out = model.forward(Array(promptIDs[prefilled..<prefilled + n]), state: state, logitRows: last ? n - 1..<n : 0..<0)
        if last { logits = out!.copyRow(0) }
        prefilled += n
    }
    let prefillSeconds = monotonicSeconds() - t0

    var generated: [Int32] = []
    var detokenizer = StreamingDetokenizer(tokenizer: tokenizer)
    let t1 = monotonicSeconds()
    var stopReason = "length"
    while generated.count < maxTokens {
        if interrupted != 0 { stopReason = "interrupted"; break }
        let next = sampler.sample(&logits)
        generated.append(next)
        sampler.accept(next)
        if tokenizer.endOfGenerationIDs.contains(next) { stopReason = "end of generation"; break }
        if !idsOnly { writeOut(detokenizer.append(next)) }
        if state.cache.count >= context { stopReason = "context full"; break }
        if generated.count == maxTokens { break }
        do { try state.cache.reserve(upTo: state.cache.count + 1) } catch {
            printError("\n")
            return fail("\(error)")
        }
        logits = model.forward([next], state: state, logitRows: 0..<1)!.copyRow(0)
    }
    let decodeSeconds = monotonicSeconds() - t1
    if idsOnly {
        print("{\"prompt_ids\": [\(promptIDs.map(String.init).joined(separator: ", "))], "
            + "\"generated_ids\": [\(generated.map(String.init).joined(separator: ", "))]}")
    } else {
        writeOut(detokenizer.flush() + "\n")
    }
    let decodeSteps = max(1, generated.count - 1)   // the first token comes from the prefill logits
    printError("prompt tokens: \(promptIDs.count), generated tokens: \(generated.count) (\(stopReason)), "
        + "prefill: \(oneDecimal(Double(promptIDs.count) / prefillSeconds)) tok/s, "
        + "decode: \(oneDecimal(Double(decodeSteps) / max(decodeSeconds, 1e-9))) tok/s, load: \(oneDecimal(loaded.loadSeconds * 1000)) ms\n")
    return interrupted != 0 ? 130 : 0
}

/// Writes text to stdout immediately (streaming).
func writeOut(_ text: String) {
    guard !text.isEmpty else { return }
    var text = text
    text.withUTF8 { buffer in _ = write(1, buffer.baseAddress, buffer.count) }
}
