import Foundation
import Testing
import Architectures
import Engine
import GGUF
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta
import Tokenizers

/// `--kl-divergence-base` files and the statistics read from them, on SmolLM2 at a short context.
@Suite(.serialized) struct KLDivergenceTests {
    static let context = 64
    static let chunks = 2

    /// The first `chunks` chunks of ppl-dev.txt, tokenized as perplexity does.
    static func tokens(_ tokenizer: Tokenizer) throws -> [Int32] {
        Array(tokenizer.encode(try PerplexityReference.text(), addSpecial: true, parseSpecial: false).prefix(context * chunks))
    }

    static func scratchFile(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("quanta-kld-\(getpid())-\(name)").path
    }

    /// A base written by one run and read back against the same model: the only differences are
    /// the file's 16-bit log-probabilities, so KLD ≈ 0, every top token agrees and PPL(base) is
    /// the perplexity the writing run printed.
    @Test func aModelAgainstItsOwnBaseAgreesEverywhere() throws {
        let file = try GGUFFile(path: PerplexityReference.modelPath("smollm"))
        let tokenizer = try loadTokenizer(from: file), model = try loadModel(file)
        let path = Self.scratchFile("self.kld")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let tokens = try Self.tokens(tokenizer)
        let writer = try LogProbabilityWriter(path: path, contextSize: Self.context, vocabulary: model.hyperparameters.vocabulary, tokens: tokens)
        let written = try perplexity(model: model, tokens: tokens, context: Self.context, bos: nil, threads: 2, base: writer)
        let base = try LogProbabilityFile(path: path)
        #expect(base.contextSize == Self.context && base.chunks == Self.chunks && base.tokens == tokens)
        let s = try klDivergence(model: model, base: base, bos: nil, threads: 2)
        #expect(s.count == Self.chunks * (Self.context - 1 - Self.context / 2))
        #expect(s.sameTop == s.count)
        #expect(abs(s.meanDivergence.value) < 1e-5, "\(s.meanDivergence)")
        #expect(abs(s.perplexity.value / written.perplexity - 1) < 1e-5)
        #expect(abs(s.basePerplexity.value / written.perplexity - 1) < 1e-3)
    }

    /// The quantized model against a base from the same file's f32-converted weights: the mean
    /// KLD and the same-top fraction equal a naive fp64 computation over the exact logits of both
    /// (KL(p_base ‖ q) = Σ p_base·(log p_base − log q) over the whole vocabulary), within what the
    /// file's 16-bit rows and its −16 cutoff can change.
    @Test func statisticsMatchANaiveComputation() throws {
        let file = try GGUFFile(path: PerplexityReference.modelPath("smollm"))
        let tokenizer = try loadTokenizer(from: file)
        let quantized = try loadModel(file), reference = try loadModel(file, weights: .converted(.f32))
        let path = Self.scratchFile("f32.kld")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let tokens = try Self.tokens(tokenizer)
        let writer = try LogProbabilityWriter(path: path, contextSize: Self.context, vocabulary: reference.hyperparameters.vocabulary, tokens: tokens)
        _ = try perplexity(model: reference, tokens: tokens, context: Self.context, bos: nil, threads: 2, base: writer)
        let s = try klDivergence(model: quantized, base: try LogProbabilityFile(path: path), bos: nil, threads: 2)

        var divergences: [Double] = [], sameTop = 0
        let first = Self.context / 2
        for c in 0..<Self.chunks {
            let chunk = Array(tokens[c * Self.context..<(c + 1) * Self.context])
            let p = try #require(rows(reference, chunk, first..<Self.context - 1)), q = try #require(rows(quantized, chunk, first..<Self.context - 1))
            for r in 0..<p.rows {
                let (pRow, qRow) = (p.copyRow(r).map(Double.init), q.copyRow(r).map(Double.init))
                let (logP, logQ) = (logSoftmax(pRow), logSoftmax(qRow))
                divergences.append(zip(logP, logQ).reduce(0) { $0 + exp($1.0) * ($1.0 - $1.1) })
                if pRow.firstIndex(of: pRow.max()!) == qRow.firstIndex(of: qRow.max()!) { sameTop += 1 }
            }
        }
        let naive = divergences.reduce(0, +) / Double(divergences.count)
        print("KLD quantized vs f32 SmolLM2: ours \(s.meanDivergence.value), naive fp64 \(naive); same top \(s.sameTop)/\(s.count), naive \(sameTop)")
        #expect(s.count == divergences.count)
        #expect(naive > 1e-4)   // the two weight sets do differ
        #expect(abs(s.meanDivergence.value - naive) < 0.02 * naive + 1e-5)
        #expect(abs(s.sameTop - sameTop) <= 1)
    }

    /// Bad base files are typed errors, never a crash: a missing file, one without the tag, one
    /// cut short, and one made with another vocabulary.
    @Test func badBaseFilesAreTypedErrors() throws {
        let path = Self.scratchFile("bad.kld")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: LogProbabilityFileError.unreadable(path)) { try LogProbabilityFile(path: path) }
        try Data("not a logits file at all".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: LogProbabilityFileError.notALogProbabilityFile(path)) { try LogProbabilityFile(path: path) }

        let tokens = (0..<16).map { Int32($0 % 10) }
        let writer = try LogProbabilityWriter(path: path, contextSize: 8, vocabulary: 10, tokens: tokens)
        for _ in 0..<(2 * 3) { try writer.append((0..<10).map { Float($0) }) }
        let whole = try LogProbabilityFile(path: path)
        #expect(whole.chunks == 2 && whole.rowsPerChunk == 3 && whole.tokens == tokens)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(data.count - 1).write(to: URL(fileURLWithPath: path))
        #expect(throws: LogProbabilityFileError.truncated(path, bytes: UInt64(data.count - 1), needed: UInt64(data.count))) {
            try LogProbabilityFile(path: path)
        }
        try data.write(to: URL(fileURLWithPath: path))
        let model = try loadModel(try GGUFFile(path: PerplexityReference.modelPath("smollm")))
        #expect(throws: LogProbabilityFileError.vocabularyMismatch(file: 10, model: model.hyperparameters.vocabulary)) {
            try klDivergence(model: model, base: whole, bos: nil, threads: 1)
        }
    }

    /// Rows `range` of the logits of one chunk run from an empty cache.
    private func rows(_ model: any CausalLanguageModel, _ chunk: [Int32], _ range: Range<Int>) -> Matrix? {
        let state = model.makeState(contextSize: chunk.count, maxBatch: chunk.count)
        state.context.threads = 2
        return model.forward(chunk, state: state, logitRows: range)
    }

    private func logSoftmax(_ row: [Double]) -> [Double] {
        let m = row.max()!, sum = row.reduce(0) { $0 + exp($1 - m) }
        return row.map { $0 - m - log(sum) }
    }
}
