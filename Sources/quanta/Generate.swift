#if canImport(Glibc)
import Glibc
#endif
import CommandLineSpec
import JSON
import Quanta

private let idsOption = OptionSpec(["--ids"], "print {\"prompt_ids\": [...], \"generated_ids\": [...]} instead of text")

let generateSpec = CommandSpec(
    name: "generate",
    summary: "Continue a prompt as raw text (no chat template), streaming it to stdout; a summary line goes to stderr.",
    options: [CommonOptions.prompt, CommonOptions.promptFile, CommonOptions.predict(default: 64)]
        + CommonOptions.modelRunning(contextSize: 4096) + CommonOptions.sampling(temperature: 0, seed: 0)
        + [idsOption]
        + IgnoredOptions.modelRunning + [IgnoredOptions.color, IgnoredOptions.noConversation, IgnoredOptions.jinja],
    notes: "Ctrl-C stops at once (exit 130), in prefill too.")

/// `quanta generate`: `LocalLanguageModel.complete` on the command line. The prompt is
/// tokenized with BOS and special-token parsing (as llama.cpp's completion does); generation
/// stops at an end-of-generation token, after -n tokens, at the end of the context, or on Ctrl-C.
func runGenerate(_ argv: [String]) async -> Int32 {
    let setup: ModelSetup, prompt: String, maximum: Int?, seed: UInt64?, idsOnly: Bool
    do throws(UsageError) {
        guard let args = try parse(generateSpec, argv) else { return 0 }
        switch (args.string(CommonOptions.prompt), args.string(CommonOptions.promptFile)) {
        case let (text?, nil): prompt = text
        case let (nil, path?): prompt = try readPromptFile(path)
        case (nil, nil): throw UsageError("a prompt is required: -p TEXT or -f FILE")
        case (_?, _?): throw UsageError("give the prompt once: -p TEXT or -f FILE, not both")
        }
        maximum = try predictCount(args, default: 64)
        seed = try seedOption(args, default: 0)
        idsOnly = args.has(idsOption)
        setup = try await ModelSetup(args, defaultContext: 4096, sampling: try samplingDefaults(args, temperature: 0))
    } catch {
        return fail(error, generateSpec)
    }
    let run = GenerateRun()
    let model = setup.model
    let outcome = await Interrupts(quitsBetweenReplies: true).run {
        // One completion per process: nothing to batch with.
        for try await event in model.complete(prompt, maximumTokens: maximum, seed: seed, batched: false) {
            run.record(event, print: !idsOnly)
        }
    }
    let (promptIDs, generated, prefillSeconds, stop) = (run.promptIDs, run.generated, run.prefillSeconds, run.stop)
    let decodeSeconds = run.decodeSeconds > 0 ? run.decodeSeconds : monotonicSeconds() - run.decodeStart
    switch outcome {
    case .interrupted where promptIDs.isEmpty:
        printError("quanta: interrupted during prefill\n")
        return 130
    case let .failed(message):
        writeOut("\n")
        return fail(message)
    default: break
    }
    if idsOnly {
        print(JSONValue.object([("prompt_ids", .array(promptIDs.map { .integer(Int($0)) })),
                                ("generated_ids", .array(generated.map { .integer(Int($0)) }))]).jsonText)
    } else {
        writeOut("\n")
    }
    let count = max(generated.count, run.tokenCount)
    let decodeSteps = max(1, count - 1)   // the first token comes from the prefill logits
    printError("prompt tokens: \(promptIDs.count), generated tokens: \(count) (\(stop)), "
        + "prefill: \(oneDecimal(Double(promptIDs.count) / max(prefillSeconds, 1e-9))) tok/s, "
        + "decode: \(oneDecimal(Double(decodeSteps) / max(decodeSeconds, 1e-9))) tok/s, load: \(oneDecimal(setup.loadSeconds * 1000)) ms\n")
    return outcome == .interrupted ? 130 : 0
}

/// What a completion reported, filled by the generating task and read after it ends.
private final class GenerateRun: @unchecked Sendable {
    var promptIDs: [Int32] = [], generated: [Int32] = []
    /// Tokens seen so far (the ids arrive with the last event; an interrupted run has none).
    var tokenCount = 0
    var prefillSeconds = 0.0, decodeSeconds = 0.0
    /// When prefill ended, for the decode rate of an interrupted run (which gets no final event).
    var decodeStart = 0.0
    var stop = "interrupted"

    func record(_ event: LocalLanguageModel.CompletionEvent, print: Bool) {
        switch event {
        case let .prefilled(ids, seconds):
            promptIDs = ids
            prefillSeconds = seconds
            decodeStart = monotonicSeconds()
        case let .token(_, text):
            tokenCount += 1
            if print { writeOut(text) }
        case let .text(text):
            if print { writeOut(text) }
        case let .finished(ids, reason, seconds):
            generated = ids
            decodeSeconds = seconds
            stop = reason.summary
        }
    }
}

extension GenerationStopReason {
    /// The words the summary line uses.
    var summary: String {
        switch self {
        case .endOfGeneration: return "end of generation"
        case .length: return "length"
        case .contextFull: return "context full"
        }
    }
}

/// Writes text to stdout immediately (streaming).
func writeOut(_ text: String) {
    guard !text.isEmpty else { return }
    var text = text
    text.withUTF8 { buffer in _ = write(1, buffer.baseAddress, buffer.count) }
}
