import Foundation
import Testing
import Architectures
import Engine
import GGUF

/// One answer whatever the prefill chunk size and wherever a prompt's prefix came from: a prompt
/// prefilled in one call or in calls of 1, 3, 7 and 64 tokens gives the same logits for its last
/// row (every vocabulary entry, as bit patterns) and the same 16 greedy tokens and logits after
/// it; and a second turn that keeps the first turn's prefilled rows, drops the rows its answer's
/// decode steps wrote and prefills the rest (what a session's KV reuse does) gives the bits of
/// prefilling the whole second turn. Both real models, every KV format (fp16, q8_0, MXFP8), 2
/// threads; Gemma 3's sliding windows (512) are longer than these prompts, so a Gemma-shaped
/// random model with a window of 8 (Q8_0 weights) crosses its window many times.
/// Time cap: ~45 s on a loaded 2-vCPU host (the one-token chunks of the real models most of it).
@Suite(.serialized) struct ChunkedPrefillTests {
    static let chunks = [1, 3, 7, 64], steps = 16
    static let formats: [KVCacheFormat] = [.f16, .q8_0, .mxfp8_e4m3]

    /// A state for prompts of up to `tokens` tokens in one call and the steps after them.
    static func state(_ model: any CausalLanguageModel, tokens: Int, format: KVCacheFormat) -> ForwardState {
        let s = model.makeState(contextSize: tokens + steps + 1, maxBatch: tokens, kvFormat: format)
        s.context.threads = 2
        return s
    }

    /// Prefills `prompt` after what `state` holds in calls of `chunk` tokens (nil: one call) and
    /// returns the last row's logits.
    static func prefill(_ model: any CausalLanguageModel, _ prompt: ArraySlice<Int32>, state: ForwardState, chunk: Int?) throws -> [Float] {
        let size = chunk ?? prompt.count
        var row: [Float] = []
        for a in stride(from: prompt.startIndex, to: prompt.endIndex, by: size) {
            let part = Array(prompt[a..<min(prompt.endIndex, a + size)]), last = a + part.count == prompt.endIndex
            let logits = model.forward(part, state: state, logitRows: last ? part.count - 1..<part.count : 0..<0, rows: .prompt)
            if last { row = try #require(logits).copyRow(0) }
        }
        return row
    }

    /// `steps` greedy decode steps from the logits `row`: each step's logits (bit patterns), then the tokens.
    static func decode(_ model: any CausalLanguageModel, from row: [Float], state: ForwardState, steps: Int) throws -> [UInt32] {
        var row = row, bits: [UInt32] = [], tokens: [UInt32] = []
        for _ in 0..<steps {
            bits += row.map(\.bitPattern)
            let next = Int32(argmax(row))
            tokens.append(UInt32(next))
            row = try #require(model.forward([next], state: state, logitRows: 0..<1, rows: .decoded)).copyRow(0)
        }
        return bits + tokens
    }

    /// The prompt prefilled in calls of `chunk` tokens, then the greedy steps: their bits.
    static func answer(_ model: any CausalLanguageModel, _ prompt: [Int32], format: KVCacheFormat, chunk: Int?) throws -> [UInt32] {
        let s = state(model, tokens: prompt.count, format: format)
        return try decode(model, from: try prefill(model, prompt[...], state: s, chunk: chunk), state: s, steps: steps)
    }

    /// Turn 1 prefills `prompt[..<split]` and decodes 8 greedy tokens; turn 2 is turn 1, its
    /// answer and `prompt[split...]`: the cache keeps turn 1's prefilled rows only (the decoded
    /// ones are dropped), the rest is prefilled in one call. Returns turn 2's tokens and its bits.
    static func secondTurn(_ model: any CausalLanguageModel, _ prompt: [Int32], split: Int,
                           format: KVCacheFormat) throws -> (tokens: [Int32], bits: [UInt32]) {
        let s = state(model, tokens: prompt.count + 8, format: format)
        let first = try decode(model, from: try prefill(model, prompt[..<split], state: s, chunk: nil), state: s, steps: 8)
        let turn2 = Array(prompt[..<split]) + first.suffix(8).map { Int32($0) } + prompt[split...]
        #expect(s.cache.truncate(to: split) == split)
        return (turn2, try decode(model, from: try prefill(model, turn2[split...], state: s, chunk: nil), state: s, steps: steps))
    }

    /// Every chunk size and the second turn against one call, for `model` and `prompt`.
    static func check(_ name: String, _ model: any CausalLanguageModel, _ prompt: [Int32], split: Int) throws {
        for format in formats {
            let whole = try answer(model, prompt, format: format, chunk: nil)
            for chunk in chunks {
                let got = try answer(model, prompt, format: format, chunk: chunk)
                let step = (0..<steps).first { i in
                    let n = (whole.count - steps) / steps
                    return got[i * n..<(i + 1) * n] != whole[i * n..<(i + 1) * n]
                }
                #expect(step == nil, "\(name) \(format), chunks of \(chunk): logits differ at step \(step ?? -1) (0: the prompt's last row)")
                #expect(got.suffix(steps) == whole.suffix(steps), "\(name) \(format), chunks of \(chunk): tokens differ")
            }
            let (turn2, reused) = try secondTurn(model, prompt, split: split, format: format)
            let replayed = try answer(model, turn2, format: format, chunk: nil)
            #expect(reused == replayed,
                    "\(name) \(format): the second turn over turn 1's prefilled rows differs from prefilling it whole")
        }
    }

    @Test(arguments: ["smollm", "gemma"])
    func realModelGivesOneAnswerWhateverTheChunks(_ key: String) throws {
        let model = try loadModel(try GGUFFile(path: ReferenceData.modelPath(key)))
        let prompt = Array(try ReferenceData.greedy(key).flatMap { $0.prompt_ids + $0.gen_ids }.prefix(96))
        try Self.check(key, model, prompt, split: 60)
    }

    /// Windows of 8 positions (every layer but the global sixth): chunks of 1, 3, 7 and 64 start
    /// their windowed layers' units at every offset from the 30-position chunk grid.
    @Test func windowedModelGivesOneAnswerWhateverTheChunks() throws {
        var config = TinyConfig(arch: "gemma3")
        (config.vocab, config.embedding, config.heads, config.kvHeads, config.headDim, config.ffn, config.window) = (64, 64, 4, 2, 32, 128, 8)
        let model = try loadModel(GGUFFile(contents: makeTinyModel(config, seed: 11, quantized: true).gguf))
        let prompt = (0..<100).map { Int32(($0 * 37 + 11) % config.vocab) }
        try Self.check("gemma-shaped, window 8", model, prompt, split: 45)
    }
}
