#if canImport(Glibc)
import Glibc
#endif
import CommandLineSpec
import GGUF
import Tokenizers

/// `quanta tokenize --model PATH [--add-special] [--parse-special] [--pieces]`: reads text from
/// stdin and prints the ids as one JSON array on one line (llama-tokenize's `--ids` shape).
/// `--pieces` adds a second line: a JSON array with each token's text.
private let addSpecialOption = OptionSpec(["--add-special"], "add BOS/EOS as the model's metadata says")
private let parseSpecialOption = OptionSpec(["--parse-special"], "turn control-token text such as <|im_start|> into its id")
private let piecesOption = OptionSpec(["--pieces"], "print a second line with each token's text")

let tokenizeSpec = CommandSpec(name: "tokenize",
                               summary: "Tokenize stdin with a model's vocabulary; prints the ids as one JSON array on one line.",
                               options: [CommonOptions.model, addSpecialOption, parseSpecialOption, piecesOption])

func runTokenize(_ argv: [String]) -> Int32 {
    let args: ParsedArguments
    do throws(UsageError) {
        guard let parsed = try parse(tokenizeSpec, argv) else { return 0 }
        guard parsed.string(CommonOptions.model) != nil else { throw UsageError("-m/--model PATH is required") }
        args = parsed
    } catch {
        return fail(error, tokenizeSpec)
    }
    let modelPath = args.string(CommonOptions.model)!
    let addSpecial = args.has(addSpecialOption), parseSpecial = args.has(parseSpecialOption), pieces = args.has(piecesOption)
    let tokenizer: any Tokenizer
    do {
        tokenizer = try loadTokenizer(from: try GGUFFile(path: modelPath))
    } catch {
        return fail(UsageError.load(modelPath, error).message)
    }
    let text = String(decoding: readStandardInput(), as: UTF8.self)
    let ids = tokenizer.encode(text, addSpecial: addSpecial, parseSpecial: parseSpecial)
    print("[" + ids.map(String.init).joined(separator: ", ") + "]")
    if pieces {
        print("[" + ids.map { quoted(tokenizer.piece($0)) }.joined(separator: ", ") + "]")
    }
    return 0
}

/// All of stdin as raw bytes (no newline handling, so the text is tokenized exactly as given).
private func readStandardInput() -> [UInt8] {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        data.append(contentsOf: buffer[0..<n])
    }
    return data
}
