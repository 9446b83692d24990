// Loads the llama.cpp reference corpora (JSONL fixtures) and the two test models.
import Foundation
import GGUF
@testable import Tokenizers

/// One corpus line: a text and llama.cpp's ids per model and mode.
struct CorpusRecord {
    struct Expected {
        let plain: [Int32]
        let special: [Int32]
        /// llama_detokenize output, when the fixture has it.
        let plainDecoded: String?
        let specialDecoded: String?
        /// llama.cpp's decode(plain) == text (false where the vocabulary cannot spell a byte).
        let plainRoundtripOK: Bool
    }
    let text: String
    let models: [String: Expected]
}

enum Corpus {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let modelsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Models")

    static let modelFiles = [
        "smollm": "SmolLM2-135M-Instruct.Q4_1.gguf",
        "gemma": "gemma-3-270m-q4_k_m.gguf",
    ]

    private struct Line: Decodable {
        struct Model: Decodable {
            let plain: [Int32]
            let special: [Int32]
            let plain_decoded: String?
            let special_decoded: String?
            let plain_roundtrip_ok: Bool?
        }
        let text: String
        let smollm: Model?
        let gemma: Model?
    }

    /// Parses a JSONL fixture. (JSONDecoder, not JSONSerialization: the latter drops a U+FEFF
    /// inside strings, and the corpus has a lone BOM.)
    static func load(_ name: String) throws -> [CorpusRecord] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent(name))
        var records: [CorpusRecord] = []
        let decoder = JSONDecoder()
        for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            let l = try decoder.decode(Line.self, from: Data(line))
            var models: [String: CorpusRecord.Expected] = [:]
            for (key, m) in [("smollm", l.smollm), ("gemma", l.gemma)] {
                guard let m else { continue }
                models[key] = .init(plain: m.plain, special: m.special, plainDecoded: m.plain_decoded,
                                    specialDecoded: m.special_decoded, plainRoundtripOK: m.plain_roundtrip_ok ?? true)
            }
            records.append(CorpusRecord(text: l.text, models: models))
        }
        return records
    }

    /// All fixtures: the shared dev set and our hostile extension.
    static let all: [CorpusRecord] = {
        var r = (try? load("tokenizer-dev.jsonl")) ?? []
        r += (try? load("tokenizer-hostile.jsonl")) ?? []
        return r
    }()

    static let files: [String: GGUFFile] = {
        var out: [String: GGUFFile] = [:]
        for (key, name) in modelFiles {
            out[key] = try? GGUFFile(path: modelsDirectory.appendingPathComponent(name).path)
        }
        return out
    }()

    static let tokenizers: [String: GGUFTokenizer] = {
        var out: [String: GGUFTokenizer] = [:]
        for (key, file) in files { out[key] = try? GGUFTokenizer(file: file) }
        return out
    }()
}
