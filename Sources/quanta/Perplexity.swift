#if canImport(Glibc)
import Glibc
#endif
import Quanta

let perplexitySpec = CommandSpec(
    name: "perplexity",
    summary: "Perplexity of a text file with llama-perplexity's protocol (chunks of -c tokens, second halves scored).",
    options: [CommonOptions.promptFile] + CommonOptions.modelRunning,
    notes: "Defaults: -c 512. The file's one trailing newline is removed; the text is tokenized once with BOS, special-token text left as text.")

/// `quanta perplexity`: `LocalLanguageModel.perplexity(of:contextSize:)` on the command line.
func runPerplexity(_ argv: [String]) async -> Int32 {
    let setup: ModelSetup, text: String
    do throws(UsageError) {
        guard let args = try parse(perplexitySpec, argv) else { return 0 }
        guard let path = args.string(CommonOptions.promptFile) else { throw UsageError("-f FILE is required") }
        var bytes = try readInputFile(path)
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        text = String(decoding: bytes, as: UTF8.self)
        setup = try await ModelSetup(args, defaultContext: 512)
    } catch {
        return fail(error, perplexitySpec)
    }
    let context = setup.model.contextSize
    let t0 = monotonicSeconds()
    do {
        let result = try setup.model.perplexity(of: text, contextSize: context) { chunk, chunks, result in
            if chunk == 0 { printError("perplexity: \(chunks) chunks of \(context), scoring \(max(0, context - 1 - context / 2)) per chunk\n") }
            writeOut("[\(chunk + 1)]\(rounded(result.runningPerplexity.last ?? .nan, 4))\(chunk + 1 == chunks ? "\n" : ",")")
        }
        print("PPL = \(rounded(result.perplexity, 4)) +/- \(rounded(result.uncertainty, 5))")
        printError("perplexity: \(result.negativeLogLikelihoods.count) scored tokens in \(oneDecimal(monotonicSeconds() - t0)) s\n")
        return 0
    } catch {
        return fail("\(error)")
    }
}

private func rounded(_ x: Double, _ digits: Int) -> String {
    guard x.isFinite else { return "\(x)" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let whole = Int(x), frac = Int(((x - Double(whole)) * scale).rounded())
    if frac >= Int(scale) { return rounded(Double(whole + 1), digits) }
    let text = String(frac)
    return "\(whole)." + String(repeating: "0", count: digits - text.count) + text
}
