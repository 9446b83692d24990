import Foundation
import Testing
import Architectures
import GGUF
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta
import Tokenizers

/// llama-perplexity's reference output (Tests/ArchitecturesTests/Fixtures): the text and each
/// model's running perplexity after every chunk.
enum PerplexityReference {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Tests/ArchitecturesTests/Fixtures")

    static func text() throws -> String {
        var data = try Data(contentsOf: fixtures.appendingPathComponent("ppl-dev.txt"))
        if data.last == UInt8(ascii: "\n") { data.removeLast() }   // llama-perplexity drops one newline
        return String(decoding: data, as: UTF8.self)
    }

    /// The `[k]value` list of the llama-perplexity log.
    static func running(_ model: String) throws -> [Double] {
        let log = try String(contentsOf: fixtures.appendingPathComponent("ppl-dev-\(model).txt"), encoding: .utf8)
        let line = try #require(log.split(separator: "\n").first { $0.hasPrefix("[1]") })
        return line.split(separator: ",").compactMap { $0.split(separator: "]").last.flatMap { Double($0) } }
    }

    static func modelPath(_ key: String) -> String {
        root.appendingPathComponent("Models/" + (key == "smollm" ? "SmolLM2-135M-Instruct.Q4_1.gguf" : "gemma-3-270m-q4_k_m.gguf")).path
    }
}

@Suite(.serialized) struct PerplexityTests {
    /// The first `chunks` chunks of ppl-dev.txt at ctx 512, same protocol as llama-perplexity;
    /// the running value must be within 1% of llama.cpp's after the same chunk (the full 11-chunk
    /// run is `quanta perplexity`, quoted in the README).
    @Test(arguments: [("smollm", 4, 5884), ("gemma", 3, 5918)])
    func matchesLlamaPerplexity(_ key: String, _ chunks: Int, _ expectedTokens: Int) throws {
        let file = try GGUFFile(path: PerplexityReference.modelPath(key))
        let tokenizer = try loadTokenizer(from: file)
        let model = try loadModel(file)
        let tokens = tokenizer.encode(try PerplexityReference.text(), addSpecial: true, parseSpecial: false)
        #expect(tokens.count == expectedTokens)   // llama-perplexity's count for the same text
        let reference = try PerplexityReference.running(key)
        let result = try perplexity(model: model, tokens: Array(tokens.prefix(chunks * 512)), context: 512,
                                    bos: tokenizer.addsBOS ? tokenizer.bosID : nil, threads: 2)
        #expect(result.negativeLogLikelihoods.count == chunks * 255)
        let ours = try #require(result.runningPerplexity.last), theirs = reference[chunks - 1]
        print("\(key): perplexity after \(chunks) chunks \(ours), llama.cpp \(theirs) (\((ours / theirs - 1) * 100)%)")
        #expect(abs(ours / theirs - 1) < 0.01)
    }

    @Test func rejectsTextShorterThanOneChunk() throws {
        let file = try GGUFFile(path: PerplexityReference.modelPath("smollm"))
        let model = try loadModel(file)
        #expect(throws: PerplexityError.textTooShort(tokens: 10, context: 512)) {
            try perplexity(model: model, tokens: [Int32](repeating: 1, count: 10), context: 512, bos: nil, threads: 1)
        }
    }

    @Test func uncertaintyFollowsLlamaCppFormula() {
        var r = PerplexityResult()
        r.negativeLogLikelihoods = [1, 2, 3, 4]
        let mean = 2.5, meanSquare = 7.5
        #expect(abs(r.perplexity - exp(mean)) < 1e-12)
        #expect(abs(r.uncertainty - exp(mean) * ((meanSquare - mean * mean) / 3).squareRoot()) < 1e-9)
    }
}
