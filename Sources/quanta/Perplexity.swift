#if canImport(Glibc)
import Glibc
#endif
import CommandLineSpec
import Evaluation
import Quanta

private let textFileOption = OptionSpec(["-f", "--file"], value: "PATH", "the text to score (one trailing newline dropped)")
private let chunksOption = OptionSpec(["--chunks"], value: "N", "score at most N chunks (default: all)")
private let baseOption = OptionSpec(["--kl-divergence-base"], value: "PATH",
                                    "log-probability file: written while scoring -f, or read with --kl-divergence")
private let divergenceOption = OptionSpec(["--kl-divergence"], "compare with the --kl-divergence-base file (its tokens and context; no -f)")

let perplexitySpec = CommandSpec(
    name: "perplexity",
    summary: "Perplexity of a text file with llama-perplexity's protocol (chunks of -c tokens, second halves scored).",
    options: [textFileOption, chunksOption, baseOption, divergenceOption] + CommonOptions.modelRunning(contextSize: 512)
        + IgnoredOptions.modelRunning,
    notes: """
    The text is tokenized once with BOS, special-token text left as text.
    The log-probability file is llama-perplexity's --kl-divergence-base format: either tool reads the other's.
    """)

/// `quanta perplexity`: `LocalLanguageModel.perplexity(of:contextSize:)` on the command line, or
/// with `--kl-divergence`, `klDivergence(againstBase:)` printing llama-perplexity's statistics.
func runPerplexity(_ argv: [String]) async -> Int32 {
    let setup: ModelSetup, text: String?, chunks: Int?, base: String?
    do throws(UsageError) {
        guard let args = try parse(perplexitySpec, argv) else { return 0 }
        base = args.string(baseOption)
        chunks = args.string(chunksOption) == nil ? nil : try args.int(chunksOption, default: 1, range: 1...Int.max)
        if args.has(divergenceOption) {
            guard base != nil else { throw UsageError("--kl-divergence needs --kl-divergence-base PATH") }
            guard args.string(textFileOption) == nil else { throw UsageError("--kl-divergence reads its tokens from the base file; drop -f") }
            text = nil
        } else {
            guard let path = args.string(textFileOption) else { throw UsageError("-f FILE is required") }
            text = try readPromptFile(path)
        }
        setup = try await ModelSetup(args, defaultContext: 512)
    } catch {
        return fail(error, perplexitySpec)
    }
    let t0 = monotonicSeconds()
    guard let text else { return klDivergence(setup.model, base: base!, chunks: chunks, t0: t0) }
    let context = setup.model.contextSize
    do {
        let result = try setup.model.perplexity(of: text, contextSize: context, maximumChunks: chunks, writingBaseTo: base) { chunk, chunks, result in
            if chunk == 0 { printError("perplexity: \(chunks) chunks of \(context), scoring \(max(0, context - 1 - context / 2)) per chunk\n") }
            writeOut(formatted("[%d]%.4f", chunk + 1, result.runningPerplexity.last ?? .nan) + (chunk + 1 == chunks ? "\n" : ","))
        }
        print(formatted("PPL = %.4f +/- %.5f", result.perplexity, result.uncertainty))
        printError("perplexity: \(result.negativeLogLikelihoods.count) scored tokens in \(oneDecimal(monotonicSeconds() - t0)) s\n")
        if let base { printError("perplexity: log-probabilities written to \(base)\n") }
        return 0
    } catch {
        return fail("\(error)")
    }
}

/// `--kl-divergence`: a line per chunk with the running values, then llama-perplexity's three
/// statistics blocks.
private func klDivergence(_ model: LocalLanguageModel, base: String, chunks: Int?, t0: Double) -> Int32 {
    do {
        let statistics = try model.klDivergence(againstBase: base, maximumChunks: chunks) { chunk, chunks, s in
            if chunk == 0 {
                printError("kl-divergence: \(chunks) chunks\n")
                print("chunk             PPL               ln(PPL(Q)/PPL(base))          KL Divergence              Δp RMS            Same top p")
            }
            let (ppl, ratio, kld, rms, top) = (s.perplexity, s.logPerplexityRatio, s.meanDivergence, s.rmsProbabilityDifference, s.sameTopFraction)
            print(formatted("%4d    %9.4f ± %9.4f    %10.5f ± %10.5f    %10.5f ± %10.5f    %6.3f ± %6.3f %%    %6.3f ± %6.3f %%",
                            chunk + 1, ppl.value, ppl.uncertainty, ratio.value, ratio.uncertainty, kld.value, kld.uncertainty,
                            100 * rms.value, 100 * rms.uncertainty, 100 * top.value, 100 * top.uncertainty))
        }
        print("")
        print(divergenceReport(statistics))
        printError("kl-divergence: \(statistics.count) scored tokens in \(oneDecimal(monotonicSeconds() - t0)) s\n")
        return 0
    } catch {
        return fail("\(error)")
    }
}

/// The statistics blocks `llama-perplexity --kl-divergence` prints, in its layout.
func divergenceReport(_ s: KLDivergenceStatistics) -> String {
    let kld = s.divergences.sorted(), dp = s.probabilityDifferences.sorted()
    let p = KLDivergenceStatistics.percentile, median = KLDivergenceStatistics.median
    var lines = ["====== Perplexity statistics ======"]
    lines.append(formatted("Mean PPL(Q)                   : %10.6f ± %10.6f", s.perplexity.value, s.perplexity.uncertainty))
    lines.append(formatted("Mean PPL(base)                : %10.6f ± %10.6f", s.basePerplexity.value, s.basePerplexity.uncertainty))
    lines.append(formatted("Cor(ln(PPL(Q)), ln(PPL(base))): %6.2f%%", 100 * s.logPerplexityCorrelation))
    lines.append(formatted("Mean ln(PPL(Q)/PPL(base))     : %10.6f ± %10.6f", s.logPerplexityRatio.value, s.logPerplexityRatio.uncertainty))
    lines.append(formatted("Mean PPL(Q)/PPL(base)         : %10.6f ± %10.6f", s.perplexityRatio.value, s.perplexityRatio.uncertainty))
    lines.append(formatted("Mean PPL(Q)-PPL(base)         : %10.6f ± %10.6f", s.perplexityDifference.value, s.perplexityDifference.uncertainty))
    lines += ["", "====== KL divergence statistics ======"]
    lines.append(formatted("Mean    KLD: %10.6f ± %10.6f", s.meanDivergence.value, s.meanDivergence.uncertainty))
    for (label, fraction) in [("Maximum", 1.0), ("99.9%%  ", 0.999), ("99.0%%  ", 0.99), ("95.0%%  ", 0.95), ("90.0%%  ", 0.9)] as [(String, Float)] {
        lines.append(formatted("\(label) KLD: %10.6f", Double(p(kld, fraction))))
    }
    lines.append(formatted("Median  KLD: %10.6f", Double(median(kld))))
    for (label, fraction) in [("10.0%%  ", 0.1), (" 5.0%%  ", 0.05), (" 1.0%%  ", 0.01), (" 0.1%%  ", 0.001), ("Minimum", 0.0)] as [(String, Float)] {
        lines.append(formatted("\(label) KLD: %10.6f", Double(p(kld, fraction))))
    }
    lines += ["", "====== Token probability statistics ======"]
    lines.append(formatted("Mean    Δp: %6.3f ± %5.3f %%", 100 * s.meanProbabilityDifference.value, 100 * s.meanProbabilityDifference.uncertainty))
    let upper: [(String, Float)] = [("Maximum", 1), ("99.9%%  ", 0.999), ("99.0%%  ", 0.99), ("95.0%%  ", 0.95), ("90.0%%  ", 0.9), ("75.0%%  ", 0.75)]
    for (label, fraction) in upper { lines.append(formatted("\(label) Δp: %6.3f%%", 100 * Double(p(dp, fraction)))) }
    lines.append(formatted("Median  Δp: %6.3f%%", 100 * Double(median(dp))))
    let lower: [(String, Float)] = [("25.0%%  ", 0.25), ("10.0%%  ", 0.1), (" 5.0%%  ", 0.05), (" 1.0%%  ", 0.01), (" 0.1%%  ", 0.001), ("Minimum", 0)]
    for (label, fraction) in lower { lines.append(formatted("\(label) Δp: %6.3f%%", 100 * Double(p(dp, fraction)))) }
    lines.append(formatted("RMS Δp    : %6.3f ± %5.3f %%", 100 * s.rmsProbabilityDifference.value, 100 * s.rmsProbabilityDifference.uncertainty))
    lines.append(formatted("Same top p: %6.3f ± %5.3f %%", 100 * s.sameTopFraction.value, 100 * s.sameTopFraction.uncertainty))
    return lines.joined(separator: "\n")
}
