#if canImport(Glibc)
import Glibc
#endif
import GGUF
import Tokenizers

/// `quanta tokenize --model PATH [--add-special] [--parse-special] [--pieces]`: reads text from
/// stdin and prints the ids as one JSON array on one line (llama-tokenize's `--ids` shape).
/// `--pieces` adds a second line: a JSON array with each token's text.
func runTokenize(_ args: [String]) -> Int32 {
    let usage = "usage: quanta tokenize --model PATH [--add-special] [--parse-special] [--pieces] < text"
    var modelPath: String?
    var addSpecial = false, parseSpecial = false, pieces = false
    var rest = args[...]
    while let a = rest.popFirst() {
        switch a {
        case "--model", "-m":
            guard let p = rest.popFirst() else { return fail(usage) }
            modelPath = p
        case "--add-special": addSpecial = true
        case "--parse-special": parseSpecial = true
        case "--pieces": pieces = true
        default: return fail("unknown option \(a)\n\(usage)")
        }
    }
    guard let modelPath else { return fail(usage) }
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
