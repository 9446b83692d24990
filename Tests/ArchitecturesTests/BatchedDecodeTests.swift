import Foundation
import Testing
import Architectures
import Engine
import GGUF
import TestSupport

/// A forward pass that runs several sequences' rows as one batch gives every sequence exactly
/// what it gets alone: for both real models and two KV cache formats, four sequences (prompts of
/// 30 to 300 tokens, so the per-head and split-K attention kernels both run) each prefill their
/// prompt in one call and decode `steps` tokens alone, then again batched with 0-3 others: each
/// prefills in chunks of its own size (13 to 256 tokens) in passes shared with the others' prompt
/// chunks and decoded rows, then decodes there (they join and leave at different steps, and the
/// parts' order changes every pass); each sequence's logits (every vocabulary entry, as bit
/// patterns) and tokens must be the same. Two sequences choose greedily, two draw from the
/// softmax with their own seeded generator.
/// Time cap: ~60 s on 2 vCPUs beside the other suites (2 models × 2 formats × 4 sequences × 24
/// steps, twice).
@Suite(.serialized) struct BatchedDecodeTests {
    static let steps = 24
    /// Step at which each sequence joins the batch and how many steps it decodes there.
    static let schedule: [(join: Int, steps: Int)] = [(0, steps), (3, steps), (5, steps - 10), (9, steps)]

    /// One sequence: its prompt and how it picks tokens (nil: greedy; else the seed of its draws).
    struct Sequence {
        let prompt: [Int32]
        let seed: UInt64?
    }

    /// Greedy, or one draw from softmax(logits) with `rng` (fp64 sums, so the draw depends only
    /// on the logits' bits).
    static func choose(_ logits: [Float], seed: UInt64?, rng: inout SplitMix64) -> Int32 {
        guard seed != nil else { return Int32(argmax(logits)) }
        let top = Double(logits.max()!)
        let weights = logits.map { exp(Double($0) - top) }
        var u = Double(rng.next() >> 11) / Double(1 << 53) * weights.reduce(0, +)
        for (i, w) in weights.enumerated() {
            u -= w
            if u < 0 { return Int32(i) }
        }
        return Int32(weights.count - 1)
    }

    /// Each sequence decoded alone: per step its logits' bits, and its tokens.
    static func alone(_ model: any CausalLanguageModel, _ sequences: [Sequence], kvFormat: KVCacheFormat) throws
        -> [(logits: [[UInt32]], tokens: [Int32])] {
        try sequences.enumerated().map { i, s in
            let state = model.makeState(contextSize: 512, maxBatch: 512, kvFormat: kvFormat)
            state.context.threads = 2
            var rng = SplitMix64(seed: s.seed ?? 0)
            var row = try #require(model.forward(s.prompt, state: state, logitRows: s.prompt.count - 1..<s.prompt.count)).copyRow(0)
            var logits: [[UInt32]] = [], tokens: [Int32] = []
            for _ in 0..<schedule[i].steps {
                logits.append(row.map(\.bitPattern))
                let next = choose(row, seed: s.seed, rng: &rng)
                tokens.append(next)
                row = try #require(model.forward([next], state: state, logitRows: 0..<1)).copyRow(0)
            }
            return (logits, tokens)
        }
    }

    /// The same sequences run through batched passes (`forward(_:workspace:)`), each joining at
    /// its step of `schedule`: its prompt goes in chunks of `chunks[i]` tokens, one chunk per
    /// pass beside the other sequences' prompt chunks and decoded rows, then it decodes there; the
    /// parts in a different order every pass.
    static func batched(_ model: any CausalLanguageModel, _ sequences: [Sequence], chunks: [Int], kvFormat: KVCacheFormat) throws
        -> [(logits: [[UInt32]], tokens: [Int32])] {
        let workspace = model.makeWorkspace(rows: chunks.reduce(0, +))
        workspace.context.threads = 2
        let states = sequences.map { _ in
            let state = model.makeState(contextSize: 512, maxBatch: 512, kvFormat: kvFormat)
            state.context.threads = 2
            return state
        }
        var rows = [[Float]?](repeating: nil, count: sequences.count), prefilled = sequences.map { _ in 0 }
        var rngs = sequences.map { SplitMix64(seed: $0.seed ?? 0) }
        var results = sequences.map { _ in (logits: [[UInt32]](), tokens: [Int32]()) }
        var order = SplitMix64(seed: 7)
        for step in 0... {
            var active = sequences.indices.filter { step >= schedule[$0].join && results[$0].tokens.count < schedule[$0].steps }
            if active.isEmpty && step > schedule.map(\.join).max()! { break }
            if active.isEmpty { continue }
            active.shuffle(using: &order)
            var parts: [SequenceRows] = []
            for i in active {
                let prompt = sequences[i].prompt
                if prefilled[i] < prompt.count {
                    let chunk = Array(prompt[prefilled[i]..<min(prompt.count, prefilled[i] + chunks[i])])
                    prefilled[i] += chunk.count
                    parts.append(SequenceRows(state: states[i], tokens: chunk, kind: .prompt, wantsLogits: prefilled[i] == prompt.count))
                    continue
                }
                let row = try #require(rows[i])
                results[i].logits.append(row.map(\.bitPattern))
                let next = choose(row, seed: sequences[i].seed, rng: &rngs[i])
                results[i].tokens.append(next)
                parts.append(SequenceRows(state: states[i], tokens: [next], kind: .decoded, wantsLogits: true))
            }
            let logits = model.forward(parts, workspace: workspace)
            var row = 0
            for (part, i) in zip(parts, active) where part.wantsLogits {
                rows[i] = logits.copyRow(row)
                row += 1
            }
        }
        return results
    }

    @Test(arguments: ["smollm", "gemma"])
    func batchedRowsEqualSequencesAlone(_ key: String) throws {
        let model = try loadModel(try GGUFFile(path: ReferenceData.modelPath(key)))
        // llama.cpp's prompts and continuations end to end, cut at four lengths.
        let text = try ReferenceData.greedy(key).flatMap { $0.prompt_ids + $0.gen_ids }
        let sequences = [(30, nil), (100, 11), (270, nil), (300, 12)].map { (n: Int, seed: UInt64?) in
            Sequence(prompt: Array(text.suffix(n)), seed: seed)
        }
        #expect(sequences.allSatisfy { $0.prompt.count >= 30 })
        for format in [KVCacheFormat.f16, .q8_0] {
            let one = try Self.alone(model, sequences, kvFormat: format)
            let many = try Self.batched(model, sequences, chunks: [13, 64, 256, 37], kvFormat: format)
            for i in sequences.indices {
                let firstStep = one[i].logits.indices.first { one[i].logits[$0] != many[i].logits[$0] }
                #expect(many[i].logits.count == one[i].logits.count && firstStep == nil,
                        "\(key) \(format) sequence \(i): logits differ from step \(firstStep ?? -1)")
                #expect(one[i].tokens == many[i].tokens, "\(key) \(format) sequence \(i): tokens differ")
            }
        }
    }
}
