// `bench tokenizer [--model PATH]... [--mb N]`: tokenizer build time from a parsed GGUF and
// encode throughput on ~1 MB of mixed text, per model, next to llama.cpp's `llama-tokenize`
// when it is on PATH or `LLAMA_TOKENIZE` points to it (its ids are also compared with ours).
import CommandLineSpec
import Foundation
import GGUF
import Tokenizers

private let defaultTokenizerModels = ["Models/SmolLM2-135M-Instruct.Q4_1.gguf", "Models/gemma-3-270m-q4_k_m.gguf"]
private let modelOption = OptionSpec(["-m", "--model"], value: "PATH",
                                     "a GGUF model; repeat for several (default \(defaultTokenizerModels.joined(separator: " and ")))", repeats: true)
private let megabytesOption = OptionSpec(["--mb"], value: "N", "megabytes of text to encode (default 1)")

let tokenizerBenchSpec = CommandSpec(
    program: "bench", name: "tokenizer",
    summary: "Tokenizer build time and encode MB/s per model, beside llama-tokenize's when it is on PATH or in $LLAMA_TOKENIZE.",
    options: [modelOption, megabytesOption])

func runTokenizerBench(_ arguments: [String]) -> Int32 {
    withArguments(tokenizerBenchSpec, arguments) { (args) throws(UsageError) -> Int32 in
        let models = args.strings(modelOption)
        return runTokenizerBench(models: models.isEmpty ? defaultTokenizerModels : models,
                                 megabytes: try args.double(megabytesOption, default: 1, range: 0.001...1000))
    }
}

private func runTokenizerBench(models: [String], megabytes: Double) -> Int32 {
    let text = mixedBenchmarkText(bytes: Int(megabytes * 1_000_000))
    let llama = llamaTokenizePath()
    print("text: \(text.utf8.count) bytes of mixed prose/code/numbers/CJK/emoji; plain mode (no BOS, no special parsing)")
    print("llama-tokenize: \(llama ?? "not found (set LLAMA_TOKENIZE)")")
    print("")
    print("| model | vocab | build ms (p50) | tokens | quanta MB/s (p50) | llama.cpp MB/s | ids equal |")
    print("|---|---|---|---|---|---|---|")
    for path in models {
        let file: GGUFFile
        do { file = try GGUFFile(path: path) } catch {
            printError("bench: \(path): \(error)\n")
            return 1
        }
        var buildTimes: [Double] = []
        var tokenizer: (any Tokenizer)?
        for _ in 0..<6 {
            let t0 = now()
            do { tokenizer = try loadTokenizer(from: file) } catch {
                printError("bench: \(path): \(error)\n")
                return 1
            }
            buildTimes.append(now() - t0)
        }
        guard let tokenizer else { return 1 }
        var ids: [Int32] = []
        var encodeTimes: [Double] = []
        _ = tokenizer.encode("warm up: 123 héllo 世界 😀", addSpecial: false, parseSpecial: false)
        for _ in 0..<4 {
            let t0 = now()
            ids = tokenizer.encode(text, addSpecial: false, parseSpecial: false)
            encodeTimes.append(now() - t0)
        }
        let mb = Double(text.utf8.count) / 1e6
        let ours = mb / median(Array(encodeTimes.dropFirst()))
        var theirs = "-", equal = "-"
        if let llama, let result = timeLlamaTokenize(llama, model: path, text: text) {
            theirs = fixed(mb / result.0, 3)
            equal = result.1 == ids ? "yes" : "NO (\(result.1.count) vs \(ids.count))"
        }
        let name = (path as NSString).lastPathComponent
        print("| \(name) | \(tokenizer.vocabularySize) | \(fixed(median(Array(buildTimes.dropFirst())) * 1000, 3)) "
            + "| \(ids.count) | \(fixed(ours, 3)) | \(theirs) | \(equal) |")
    }
    print("")
    print("llama.cpp MB/s = bytes / (time of llama-tokenize on the text - time on an empty input), best of 3,")
    print("so its process start and vocabulary load are excluded.")
    return 0
}

/// Deterministic mixed text: English prose, code, numbers, whitespace runs, several scripts and
/// emoji, shuffled by a fixed LCG so that words recur without being one repeated block.
func mixedBenchmarkText(bytes: Int) -> String {
    let pieces = [
        "The quick brown fox jumps over the lazy dog. ", "It's a truth universally acknowledged, ",
        "that a single model in possession of a good tokenizer must be in want of speed. ",
        "Quantization trades a little accuracy for a lot of speed; ", "we measured 1,234.56 tokens/s at 3.2 GHz ",
        "on 2024-11-29 (v0.3.36). ", "\n\n", "    ", "\t", "\r\n",
        "func encode(_ text: String) -> [Int32] { return ids.map { $0 + 1 } }\n",
        "for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; }\n", "def f(x):\n    return x ** 2  # square\n",
        "<div class=\"row\"><span>value</span></div>\n", "https://example.com/path?q=tokenizer&n=42 ",
        "Zürich, São Paulo, Kraków, İstanbul — naïve café résumé. ", "Москва — столица России. ",
        "東京は日本の首都です。", "北京欢迎你！", "한국어 텍스트 처리는 어렵다. ", "مرحبا بالعالم ", "שלום עולם ",
        "नमस्ते दुनिया ", "😀 👍🏽 👨‍👩‍👧‍👦 🇯🇵 ", "3.14159265358979 2.71828 1e-10 0xDEADBEEF 1234567890 ",
        "pneumonoultramicroscopicsilicovolcanoconiosis ", "I'm sure they'll say we've done it; don't worry. ",
        "SELECT name, count(*) FROM users WHERE age >= 18 GROUP BY name;\n", "   ", "!!! ??? ... --- ",
    ]
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var out = ""
    out.reserveCapacity(bytes + 256)
    var count = 0
    while count < bytes {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let p = pieces[Int(state >> 33) % pieces.count]
        out += p
        count += p.utf8.count
    }
    return out
}

private func llamaTokenizePath() -> String? {
    let env = ProcessInfo.processInfo.environment
    if let p = env["LLAMA_TOKENIZE"], FileManager.default.isExecutableFile(atPath: p) { return p }
    for dir in (env["PATH"] ?? "").split(separator: ":") {
        let p = "\(dir)/llama-tokenize"
        if FileManager.default.isExecutableFile(atPath: p) { return p }
    }
    return nil
}

/// Seconds llama-tokenize spends on `text` beyond its fixed start-up cost, and its ids.
private func timeLlamaTokenize(_ tool: String, model: String, text: String) -> (Double, [Int32])? {
    func run(_ input: String) -> (Double, [Int32])? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-m", model, "--stdin", "--ids", "--log-disable", "--no-escape", "--no-bos",
                             "--no-parse-special"]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        let t0 = now()
        do { try process.run() } catch { return nil }
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let elapsed = now() - t0
        guard process.terminationStatus == 0,
              let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last(where: { $0.hasPrefix("[") })
        else { return nil }
        let ids = line.dropFirst().dropLast().split(separator: ",").compactMap {
            Int32($0.trimmingCharacters(in: .whitespaces))
        }
        return (elapsed, ids)
    }
    var best = Double.infinity, bestEmpty = Double.infinity
    var ids: [Int32] = []
    for _ in 0..<3 {
        guard let full = run(text), let empty = run("") else { return nil }
        best = min(best, full.0)
        bestEmpty = min(bestEmpty, empty.0)
        ids = full.1
    }
    return (max(best - bestEmpty, 1e-9), ids)
}
