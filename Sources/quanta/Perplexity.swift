#if canImport(Glibc)
import Glibc
#endif
import Quanta

let perplexityUsage = "usage: quanta perplexity --model PATH --file TEXT [--ctx 512] [--threads N] [--weights FORMAT] [--kv FORMAT]"

/// `quanta perplexity`: llama-perplexity's protocol (see `Quanta.perplexity`); the file's one
/// trailing newline is removed, the text tokenized once with add-special on and parse-special off.
func runPerplexity(_ argv: [String]) -> Int32 {
    do {
        let args = try Arguments(argv, valued: LoadedModel.valuedOptions.union(["--file", "-f"]), flags: [])
        guard let path = args.string("--file", "-f") else { throw UsageError("--file PATH is required") }
        var bytes = try readInputFile(path)
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        let threads = try threadCount(args)
        let kv = try kvFormat(args)
        let loaded = try LoadedModel(args)
        let context = try contextSize(args, model: loaded.model, fallback: 512)
        let tokens = loaded.tokenizer.encode(String(decoding: bytes, as: UTF8.self), addSpecial: true, parseSpecial: false)
        let bos = loaded.tokenizer.addsBOS ? loaded.tokenizer.bosID : nil
        let chunks = tokens.count / max(context, 1)
        printError("perplexity: \(tokens.count) tokens, \(chunks) chunks of \(context), scoring \(max(0, context - 1 - context / 2)) per chunk\n")
        let t0 = monotonicSeconds()
        let result = try perplexity(model: loaded.model, tokens: tokens, context: context, bos: bos, threads: threads, kvFormat: kv) { c, r in
            writeOut("[\(c + 1)]\(fourDecimals(r.runningPerplexity.last ?? .nan))\(c + 1 == chunks ? "\n" : ",")")
        }
        print("PPL = \(fourDecimals(result.perplexity)) +/- \(fiveDecimals(result.uncertainty))")
        printError("perplexity: \(result.negativeLogLikelihoods.count) scored tokens in \(oneDecimal(monotonicSeconds() - t0)) s\n")
        return 0
    } catch let error as UsageError {
        return fail(error.showsUsage ? "\(error.message)\n\(perplexityUsage)" : error.message)
    } catch {
        return fail("\(error)")
    }
}

private func fourDecimals(_ x: Double) -> String { rounded(x, 4) }
private func fiveDecimals(_ x: Double) -> String { rounded(x, 5) }

private func rounded(_ x: Double, _ digits: Int) -> String {
    guard x.isFinite else { return "\(x)" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let whole = Int(x), frac = Int(((x - Double(whole)) * scale).rounded())
    if frac >= Int(scale) { return rounded(Double(whole + 1), digits) }
    let text = String(frac)
    return "\(whole)." + String(repeating: "0", count: digits - text.count) + text
}
