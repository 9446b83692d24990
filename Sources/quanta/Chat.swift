#if canImport(Glibc)
import Glibc
#endif
import Architectures
import Foundation
import Quanta

let chatUsage = """
usage: quanta chat --model PATH [--system TEXT] [--reasoning light|moderate|deep|none|budget:N]
                   [-n MAX_TOKENS] [--temp 0] [--seed N] [--ctx N] [--threads N] [--weights FORMAT]
"""

/// `quanta chat`: a multi-turn conversation through the public `LanguageModelSession` API. Each
/// line on stdin is one user turn (`/exit` or end of input ends the chat); the reply streams to
/// stdout, thinking (for reasoning models) to stderr, and after every turn one usage line goes
/// to stderr:
/// `[usage] input 57 (cached 41), output 12 (reasoning 0), 48.1 tok/s`
/// where tok/s counts output tokens over the time from the end of prefill to the last token.
/// A `> ` prompt is shown only when stdin is a terminal, so piped input gives clean output.
/// Ctrl-C during a reply stops that reply (the session stays usable); elsewhere it quits.
func runChat(_ argv: [String]) async -> Int32 {
    let model: LocalLanguageModel
    let options: GenerationOptions
    let contextOptions: ContextOptions
    let system: String?
    do throws(UsageError) {
        let args = try Arguments(argv, valued: LoadedModel.valuedOptions.union(["--system", "--reasoning", "-n", "--temp", "--seed"]),
                                 flags: [])
        guard let path = args.string("--model", "-m") else { throw UsageError("--model PATH is required") }
        var mode = WeightMode.native
        if let w = args.string("--weights") {
            guard let m = WeightMode(argument: w) else { throw UsageError("--weights: unknown format \(w)") }
            mode = m
        }
        let temperature = try args.float("--temp", default: 0, range: 0...100)
        let seed = UInt64(try args.int("--seed", default: 0, range: 0...Int.max))
        options = GenerationOptions(samplingMode: temperature == 0 ? .greedy : .random(probabilityThreshold: 0.95, seed: seed),
                                    temperature: Double(temperature),
                                    maximumResponseTokens: try args.int("-n", default: 512, range: 1...1_000_000))
        contextOptions = ContextOptions(reasoningLevel: try reasoningLevel(args.string("--reasoning")))
        system = args.string("--system")
        let ctx = try args.int("--ctx", "-c", default: 4096, range: 1...1_000_000)
        let threads = try threadCount(args)
        do {
            model = try await LocalLanguageModel(contentsOf: URL(fileURLWithPath: path),
                                                 configuration: .init(contextSize: ctx, threads: threads, weights: mode))
        } catch {
            throw .load(path, error)
        }
    } catch {
        return fail(error.showsUsage ? "\(error.message)\n\(chatUsage)" : error.message)
    }

    let session = LanguageModelSession(model: model, instructions: system)
    session.prewarm()
    let interactive = isatty(0) != 0
    while true {
        if interactive { printError("> ") }
        guard let line = readLine() else { break }
        let prompt = line.trimmingCharacters(in: .whitespaces)
        if prompt.isEmpty { continue }
        if prompt == "/exit" || prompt == "/quit" { break }
        do {
            try await chatTurn(session, prompt, options, contextOptions)
        } catch {
            printError("quanta: error: \(error)\n")
        }
    }
    return 0
}

/// Streams one reply and prints its usage line.
private func chatTurn(_ session: LanguageModelSession, _ prompt: String, _ options: GenerationOptions,
                      _ contextOptions: ContextOptions) async throws {
    var shown = "", thought = ""
    var decodeStart: Double?
    var usage: LanguageModelSession.Usage?
    // While a reply streams, Ctrl-C only ends the reply: leaving the loop cancels generation.
    // The library's prefill cannot be cancelled, so until the first snapshot (which arrives when
    // the prompt has been prefilled) Ctrl-C exits at once.
    prefillingInLibrary = 1
    installInterruptHandler()
    defer {
        prefillingInLibrary = 0
        signal(SIGINT, SIG_DFL)
    }
    for try await snapshot in session.streamResponse(to: prompt, options: options, contextOptions: contextOptions) {
        prefillingInLibrary = 0
        if interrupted != 0 { break }
        if decodeStart == nil { decodeStart = monotonicSeconds() }
        let reasoning = snapshot.transcriptEntries.compactMap { entry -> String? in
            guard case let .reasoning(reasoning) = entry else { return nil }
            return reasoning.segments.map(\.description).joined()
        }.joined()
        // Snapshots are cumulative: print what is new. Compared in UTF-8 bytes, not Characters,
        // because appended text can merge with the last character ("\r" + "\n").
        if reasoning.utf8.count > thought.utf8.count {
            printError(String(decoding: reasoning.utf8.dropFirst(thought.utf8.count), as: UTF8.self))
            thought = reasoning
        }
        if snapshot.content.utf8.count > shown.utf8.count {
            writeOut(String(decoding: snapshot.content.utf8.dropFirst(shown.utf8.count), as: UTF8.self))
            shown = snapshot.content
        }
        usage = snapshot.usage
    }
    if !thought.isEmpty { printError("\n") }
    writeOut("\n")
    let seconds = max(1e-9, monotonicSeconds() - (decodeStart ?? monotonicSeconds()))
    let input = usage?.input, output = usage?.output
    printError("[usage] input \(input?.totalTokenCount ?? 0) (cached \(input?.cachedTokenCount ?? 0)), "
        + "output \(output?.totalTokenCount ?? 0) (reasoning \(output?.reasoningTokenCount ?? 0)), "
        + "\(oneDecimal(Double(output?.totalTokenCount ?? 0) / seconds)) tok/s\n")
}

/// `--reasoning` spellings: the three levels, `none`, or `budget:N` (passed as `.custom`).
private func reasoningLevel(_ text: String?) throws(UsageError) -> ContextOptions.ReasoningLevel? {
    switch text {
    case nil: return nil
    case "light"?: return .light
    case "moderate"?: return .moderate
    case "deep"?: return .deep
    case let t? where t == "none" || t.hasPrefix("budget:") && Int(t.dropFirst(7)) != nil: return .custom(t)
    case let t?: throw UsageError("--reasoning must be light, moderate, deep, none or budget:N, got \(t)")
    }
}
