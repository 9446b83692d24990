import Foundation
import Testing
@testable import Architectures
import Engine
import GGUF

/// Tiny random models written as GGUF files by the test, run through our loader and forward
/// pass, and checked against a naive double-precision forward written here from the papers'
/// equations (independent of Engine's ops).
struct TinyConfig {
    var arch: String
    var vocab = 40, embedding = 32, layers = 6, heads = 4, kvHeads = 2, headDim = 8, ffn = 64
    var window = 3
    var ropeBase: Double = 10_000
    var eps: Double = 1e-5
    var gemma: Bool { arch == "gemma3" }
}

/// Weights as plain Double arrays, [outputs][inputs] for matrices.
struct TinyWeights {
    var tensors: [String: [Double]] = [:]
    var shapes: [String: [Int]] = [:]

    mutating func add(_ name: String, _ shape: [Int], _ rng: inout RNG, scale: Double = 0.3, around: Double = 0) {
        shapes[name] = shape
        tensors[name] = (0..<shape.reduce(1, *)).map { _ in around + scale * (rng.unit() * 2 - 1) }
    }
}

struct RNG {
    var state: UInt64
    mutating func unit() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(state >> 11) / Double(1 << 53)
    }
}

/// ggml's Q8_0 blocks of `x` (rows of a multiple of 32): per 32 values an fp16 scale
/// d = amax / 127 and the values / d rounded to int8.
func quantizeQ8_0(_ x: [Float]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(x.count / 32 * 34)
    for b in stride(from: 0, to: x.count, by: 32) {
        let block = x[b..<b + 32], d = block.map(abs).max()! / 127, inverse = d > 0 ? 1 / d : 0
        let bits = Float16(d).bitPattern
        out += [UInt8(bits & 0xFF), UInt8(bits >> 8)]
        out += block.map { UInt8(bitPattern: Int8(($0 * inverse).rounded())) }
    }
    return out
}

/// The model's GGUF (matrices as F32, or as Q8_0 with `quantized`: rows of a multiple of 32) and
/// its weights as the naive forward reads them (unquantized).
func makeTinyModel(_ c: TinyConfig, seed: UInt64, quantized: Bool = false) -> (gguf: [UInt8], weights: TinyWeights) {
    var rng = RNG(state: seed), w = TinyWeights()
    let q = c.heads * c.headDim, kv = c.kvHeads * c.headDim
    w.add("token_embd.weight", [c.embedding, c.vocab], &rng, scale: 1)
    w.add("output_norm.weight", [c.embedding], &rng, scale: 0.2, around: 1)
    for i in 0..<c.layers {
        let p = "blk.\(i)."
        w.add(p + "attn_norm.weight", [c.embedding], &rng, scale: 0.2, around: 1)
        w.add(p + "attn_q.weight", [c.embedding, q], &rng)
        w.add(p + "attn_k.weight", [c.embedding, kv], &rng)
        w.add(p + "attn_v.weight", [c.embedding, kv], &rng)
        w.add(p + "attn_output.weight", [q, c.embedding], &rng)
        w.add(p + "ffn_norm.weight", [c.embedding], &rng, scale: 0.2, around: 1)
        w.add(p + "ffn_gate.weight", [c.embedding, c.ffn], &rng)
        w.add(p + "ffn_up.weight", [c.embedding, c.ffn], &rng)
        w.add(p + "ffn_down.weight", [c.ffn, c.embedding], &rng)
        if c.gemma {
            w.add(p + "attn_q_norm.weight", [c.headDim], &rng, scale: 0.2, around: 1)
            w.add(p + "attn_k_norm.weight", [c.headDim], &rng, scale: 0.2, around: 1)
            w.add(p + "post_attention_norm.weight", [c.embedding], &rng, scale: 0.2, around: 1)
            w.add(p + "post_ffw_norm.weight", [c.embedding], &rng, scale: 0.2, around: 1)
        }
    }
    if !c.gemma { w.add("output.weight", [c.embedding, c.vocab], &rng) }   // llama: untied head

    var g = GGUFWriter()
    g.set("general.architecture", .string(c.arch))
    g.set("\(c.arch).embedding_length", .uint32(UInt32(c.embedding)))
    g.set("\(c.arch).block_count", .uint32(UInt32(c.layers)))
    g.set("\(c.arch).feed_forward_length", .uint32(UInt32(c.ffn)))
    g.set("\(c.arch).attention.head_count", .uint32(UInt32(c.heads)))
    g.set("\(c.arch).attention.head_count_kv", .uint32(UInt32(c.kvHeads)))
    g.set("\(c.arch).attention.key_length", .uint32(UInt32(c.headDim)))
    g.set("\(c.arch).context_length", .uint32(64))
    g.set("\(c.arch).attention.layer_norm_rms_epsilon", .float32(Float(c.eps)))
    g.set("\(c.arch).rope.freq_base", .float32(Float(c.ropeBase)))
    if c.gemma { g.set("gemma3.attention.sliding_window", .uint32(UInt32(c.window))) }
    for name in w.tensors.keys.sorted() {
        let shape = w.shapes[name]!, floats = w.tensors[name]!.map { Float($0) }
        if quantized && shape.count == 2 {
            g.addTensor(name, shape: shape, type: .q8_0, data: quantizeQ8_0(floats))
        } else {
            g.addTensor(name, shape: shape, floats: floats)
        }
    }
    return (g.serialize(), w)
}

/// The naive forward: returns logits for every position of `tokens`.
func naiveForward(_ c: TinyConfig, _ w: TinyWeights, tokens: [Int]) -> [[Double]] {
    func matvec(_ name: String, _ x: [Double]) -> [Double] {
        let m = w.tensors[name]!, inputs = w.shapes[name]![0], outputs = w.shapes[name]![1]
        return (0..<outputs).map { o in (0..<inputs).reduce(0) { $0 + m[o * inputs + $1] * x[$1] } }
    }
    func rms(_ x: [Double], _ name: String) -> [Double] {
        let g = w.tensors[name]!, width = g.count
        var y = x
        for start in stride(from: 0, to: x.count, by: width) {
            let s = x[start..<start + width].reduce(0) { $0 + $1 * $1 } / Double(width)
            for i in 0..<width { y[start + i] = x[start + i] / (s + c.eps).squareRoot() * g[i] }
        }
        return y
    }
    func rope(_ x: [Double], heads: Int, pos: Int, base: Double) -> [Double] {
        var y = x
        let d = c.headDim
        for h in 0..<heads {
            for i in 0..<d / 2 {
                let theta = Double(pos) * pow(base, -2 * Double(i) / Double(d))
                let (a, b) = c.gemma ? (h * d + i, h * d + i + d / 2) : (h * d + 2 * i, h * d + 2 * i + 1)
                y[a] = x[a] * cos(theta) - x[b] * sin(theta)
                y[b] = x[a] * sin(theta) + x[b] * cos(theta)
            }
        }
        return y
    }
    let embd = w.tensors["token_embd.weight"]!
    var keys = [[[Double]]](repeating: [], count: c.layers), values = keys
    var out: [[Double]] = []
    for (pos, token) in tokens.enumerated() {
        var x = Array(embd[token * c.embedding..<(token + 1) * c.embedding])
        if c.gemma { x = x.map { $0 * Double(c.embedding).squareRoot() } }
        for l in 0..<c.layers {
            let p = "blk.\(l).", global = !c.gemma || l % 6 == 5
            let base = c.gemma && !global ? 10_000 : c.ropeBase
            let h = rms(x, p + "attn_norm.weight")
            var q = matvec(p + "attn_q.weight", h), k = matvec(p + "attn_k.weight", h)
            let v = matvec(p + "attn_v.weight", h)
            if c.gemma { q = rms(q, p + "attn_q_norm.weight"); k = rms(k, p + "attn_k_norm.weight") }
            q = rope(q, heads: c.heads, pos: pos, base: base)
            k = rope(k, heads: c.kvHeads, pos: pos, base: base)
            keys[l].append(k); values[l].append(v)
            var att = [Double](repeating: 0, count: c.heads * c.headDim)
            let first = global ? 0 : max(0, pos - c.window + 1)
            for head in 0..<c.heads {
                let g = head / (c.heads / c.kvHeads)
                let qh = q[head * c.headDim..<(head + 1) * c.headDim]
                let scores = (first...pos).map { t in
                    zip(qh, keys[l][t][g * c.headDim..<(g + 1) * c.headDim]).reduce(0) { $0 + $1.0 * $1.1 } / Double(c.headDim).squareRoot()
                }
                let m = scores.max()!, e = scores.map { exp($0 - m) }, sum = e.reduce(0, +)
                for (j, t) in (first...pos).enumerated() {
                    for d in 0..<c.headDim { att[head * c.headDim + d] += e[j] / sum * values[l][t][g * c.headDim + d] }
                }
            }
            var o = matvec(p + "attn_output.weight", att)
            if c.gemma { o = rms(o, p + "post_attention_norm.weight") }
            x = zip(x, o).map(+)
            let h2 = rms(x, p + "ffn_norm.weight")
            let gate = matvec(p + "ffn_gate.weight", h2), up = matvec(p + "ffn_up.weight", h2)
            let act = zip(gate, up).map { g, u in
                c.gemma ? 0.5 * g * (1 + tanh(0.7978845608028654 * (g + 0.044715 * g * g * g))) * u : g / (1 + exp(-g)) * u
            }
            var f = matvec(p + "ffn_down.weight", act)
            if c.gemma { f = rms(f, p + "post_ffw_norm.weight") }
            x = zip(x, f).map(+)
        }
        out.append(matvec(c.gemma ? "token_embd.weight" : "output.weight", rms(x, "output_norm.weight")))
    }
    return out
}

@Suite struct SyntheticModelTests {
    /// Prefill in uneven batches (3, then 5, then one token at a time) so batching, positions,
    /// the KV cache and the sliding window are all exercised; every position's logits compared.
    @Test(arguments: ["llama", "gemma3"], [1, 2])
    func forwardMatchesNaiveImplementation(_ arch: String, threads: Int) throws {
        let config = TinyConfig(arch: arch)
        let (bytes, weights) = makeTinyModel(config, seed: arch == "llama" ? 1 : 2)
        let model = try loadModel(GGUFFile(contents: bytes))
        let tokens = [3, 17, 0, 39, 5, 5, 22, 8, 1, 30, 12]
        let expected = naiveForward(config, weights, tokens: tokens)
        let state = model.makeState(contextSize: 16, maxBatch: 3)
        state.context.threads = threads
        var got: [[Float]] = []
        let first = try #require(model.forward(tokens[0..<8].map(Int32.init), state: state, logitRows: 0..<8))
        got += (0..<8).map(first.copyRow)
        for t in tokens[8...] {
            got.append(try #require(model.forward([Int32(t)], state: state, logitRows: 0..<1)).copyRow(0))
        }
        #expect(state.cache.count == tokens.count)
        var worst = 0.0
        for (g, e) in zip(got, expected) {
            for (a, b) in zip(g, e) { worst = max(worst, abs(Double(a) - b) / (1 + abs(b))) }
        }
        // fp16 K/V storage bounds the agreement; a wrong op would miss by O(1).
        #expect(worst < 5e-3, "\(arch): worst relative difference \(worst)")
    }

    /// Gemma's windowed layers keep only window − 1 + maxBatch rows, sliding many times over 30
    /// tokens; a rollback that keeps the windows continues exactly, and one past the rows they
    /// dropped empties the cache (re-run from 0). Every logit against the naive forward.
    @Test(arguments: [KVCacheFormat.f16, .q8_0])
    func windowedLayersSlideAndRollBack(_ format: KVCacheFormat) throws {
        var config = TinyConfig(arch: "gemma3")
        (config.heads, config.kvHeads, config.headDim, config.window) = (2, 1, 32, 4)
        let (bytes, weights) = makeTinyModel(config, seed: 9)
        let model = try loadModel(GGUFFile(contents: bytes))
        let tokens = (0..<30).map { ($0 * 17 + 5) % config.vocab }
        let state = model.makeState(contextSize: 40, maxBatch: 4, kvFormat: format)
        state.context.threads = 2
        func worst(_ got: [[Float]], _ expected: [[Double]]) -> Double {
            var w = 0.0
            for (g, e) in zip(got, expected) { for (a, b) in zip(g, e) { w = max(w, abs(Double(a) - b) / (1 + abs(b))) } }
            return w
        }
        func run(_ t: ArraySlice<Int>) throws -> [[Float]] {
            let out = try #require(model.forward(t.map(Int32.init), state: state, logitRows: 0..<t.count))
            return (0..<t.count).map(out.copyRow)
        }
        // fp16 storage bounds the agreement tightly; q8_0's rounding over 30 positions reaches
        // ~0.06 (the windowed rows are bit-identical to a full cache's: KVCacheWindowTests).
        let bound = format == .f16 ? 5e-3 : 0.1
        var got = try run(tokens[0..<10])
        for i in 10..<30 { got += try run(tokens[i..<i + 1]) }
        #expect(state.cache.offsets.max()! > 0, "the windowed layers slid")
        #expect(worst(got, naiveForward(config, weights, tokens: tokens)) < bound)
        // Back to 28: the windows before it are still held; continue with other tokens.
        #expect(state.cache.truncate(to: 28) == 28)
        let other = Array(tokens[0..<28]) + [3, 11, 7]
        let tail = try run(other[28...])
        #expect(worst(tail, Array(naiveForward(config, weights, tokens: other)[28...])) < bound)
        // Back to 6: positions 3...5 left the windowed rows long ago, so nothing is kept.
        #expect(state.cache.truncate(to: 6) == 0)
        let again = Array(tokens[0..<6]) + [1, 2]
        #expect(worst(try run(again[...]), naiveForward(config, weights, tokens: again)) < bound)
    }

    /// The block KV formats against the same naive forward (which keeps K/V exact): the bound is
    /// the format's rounding, far below the O(1) miss of a wrong layout or scale.
    @Test(arguments: [("llama", KVCacheFormat.q8_0, 0.05), ("gemma3", .q8_0, 0.05),
                      ("llama", .mxfp8_e4m3, 0.25), ("gemma3", .mxfp8_e4m3, 0.25), ("gemma3", .f16, 0.005)])
    func quantizedKVCacheStaysClose(_ arch: String, _ format: KVCacheFormat, _ bound: Double) throws {
        var config = TinyConfig(arch: arch)
        (config.heads, config.kvHeads, config.headDim) = (2, 1, 32)   // block formats need 32-wide heads
        let (bytes, weights) = makeTinyModel(config, seed: 5)
        let model = try loadModel(GGUFFile(contents: bytes))
        let tokens = [7, 1, 33, 20, 2, 9, 14, 38]
        let expected = naiveForward(config, weights, tokens: tokens)
        let state = model.makeState(contextSize: 8, maxBatch: 4, kvFormat: format)
        let logits = try #require(model.forward(tokens.map(Int32.init), state: state, logitRows: 0..<8))
        var worst = 0.0
        for (r, e) in expected.enumerated() {
            for (a, b) in zip(logits.copyRow(r), e) { worst = max(worst, abs(Double(a) - b) / (1 + abs(b))) }
        }
        #expect(worst < bound, "\(arch) \(format): worst relative difference \(worst)")
        print("KV \(format) \(arch): worst relative logit difference \(worst)")
    }

    @Test func unsupportedArchitectureAndMissingTensorsAreTypedErrors() throws {
        var (bytes, _) = makeTinyModel(TinyConfig(arch: "llama"), seed: 3)
        var g = GGUFWriter()
        g.set("general.architecture", .string("mamba"))
        #expect(throws: ModelError.unsupportedArchitecture("mamba")) { try loadModel(GGUFFile(contents: g.serialize())) }

        // Drop blk.2.ffn_up.weight by renaming it.
        let name = Array("blk.2.ffn_up.weight".utf8)
        if let at = bytes.firstRange(of: name) { bytes[at.lowerBound + 6] = UInt8(ascii: "X") }
        #expect(throws: ModelError.missingTensor("blk.2.ffn_up.weight")) { try loadModel(GGUFFile(contents: bytes)) }
    }
}
