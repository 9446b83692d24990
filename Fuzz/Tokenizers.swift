// libFuzzer target: the real SmolLM2 (BPE) and Gemma 3 (SentencePiece) vocabularies and the
// designed BERT WordPiece and Gemma 4 BPE test vocabularies encode arbitrary bytes, with and
// without special-token parsing, and the ids are decoded back at once and token by token. No
// exact round trip is asserted: like llama.cpp, SmolLM2 drops bytes its vocabulary has no byte
// token for (0x04, 0x06, ...), and WordPiece drops whitespace and control characters. The models
// are read from $QUANTA_MODELS (default: Models/ under the current directory), the designed
// vocabularies from Tests/TokenizersTests/Fixtures (run from the repository root, as `make fuzz` does).

import GGUF
#if canImport(Glibc)
import Glibc
#endif

let fuzzTokenizers: [any Tokenizer] = {
    let directory = getenv("QUANTA_MODELS").map { String(cString: $0) } ?? "Models"
    let fixtures = "Tests/TokenizersTests/Fixtures"
    let paths = ["SmolLM2-135M-Instruct.Q4_1.gguf", "gemma-3-270m-q4_k_m.gguf"].map { "\(directory)/\($0)" }
        + ["designed-bert.gguf", "designed-bert-cased.gguf", "designed-gemma4.gguf"].map { "\(fixtures)/\($0)" }
    return paths.map { path in
        do {
            return try loadTokenizer(from: try GGUFFile(path: path))
        } catch {
            fatalError("fuzz: cannot load \(path): \(error)")
        }
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenize(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    // The first byte picks the options, the rest is the text.
    let options = data[0]
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    for tokenizer in fuzzTokenizers {
        let parseSpecial = options & 1 != 0, addSpecial = options & 2 != 0
        let ids = tokenizer.encode(text, addSpecial: addSpecial, parseSpecial: parseSpecial)
        for id in ids where id < 0 || Int(id) >= tokenizer.vocabularySize { fatalError("id \(id) outside the vocabulary") }
        _ = tokenizer.decode(ids, renderSpecial: parseSpecial)
        var stream = StreamingDetokenizer(tokenizer: tokenizer)
        for id in ids { _ = stream.append(id) }
        _ = stream.flush()
    }
    return 0
}
