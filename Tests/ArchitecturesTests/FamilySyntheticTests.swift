import Foundation
import Testing
@testable import Architectures
import Engine
import GGUF

/// What a tiny synthetic model of one of the newer families uses (see `FamilySyntheticTests`).
struct FamilyTinyConfig {
    var arch: String
    var vocab = 40, embedding = 32, layers = 2, heads = 4, kvHeads = 2, headDim = 8, ffn = 64
    var rotaryDims = 8
    var neox = false, qkvBias = false, qkNorm = false, fused = false, tied = false
    /// Frequency divisors as `rope_freqs.weight` (Llama 3), or LongRoPE's long factors.
    var ropeFreqs = false, longRope = false
    /// YaRN scaling factor (nil: none); original context for YaRN, LongRoPE and temperature.
    var yarnFactor: Double? = nil
    var originalContext = 4
    var ropeAttnFactor: Double? = nil
    var temperature: Double? = nil
    /// Granite's multipliers: embedding, residual, attention, logit.
    var granite: (Double, Double, Double, Double)? = nil
    var ropeBase = 10_000.0, eps = 1e-5

    static func of(_ family: String) -> FamilyTinyConfig {
        var c = FamilyTinyConfig(arch: family)
        switch family {
        case "qwen2": (c.neox, c.qkvBias, c.tied) = (true, true, true)
        case "qwen3": (c.neox, c.qkNorm) = (true, true)
        case "phi3": (c.neox, c.fused, c.longRope, c.rotaryDims, c.ropeAttnFactor) = (true, true, true, 6, 1.2)
        case "granite": c.granite = (2, 0.7, 0.25, 0.5)
        case "mistral3": (c.yarnFactor, c.temperature) = (4, 0.1)
        default: (c.arch, c.ropeFreqs) = ("llama", true)   // "llama3"
        }
        return c
    }
}

/// Builds the GGUF of `c` and keeps its weights in Double for the naive forward. `matrices`: the
/// type of every 2-D tensor (F32, F16 or BF16; the weights kept are the rounded values).
func makeFamilyTinyModel(_ c: FamilyTinyConfig, seed: UInt64, matrices: GGMLType = .f32) -> (gguf: [UInt8], weights: TinyWeights) {
    var rng = RNG(state: seed), w = TinyWeights()
    let q = c.heads * c.headDim, kv = c.kvHeads * c.headDim
    w.add("token_embd.weight", [c.embedding, c.vocab], &rng, scale: 1)
    w.add("output_norm.weight", [c.embedding], &rng, scale: 0.2, around: 1)
    if !c.tied { w.add("output.weight", [c.embedding, c.vocab], &rng) }
    if c.ropeFreqs { w.add("rope_freqs.weight", [c.rotaryDims / 2], &rng, scale: 3, around: 4) }
    if c.longRope {
        w.add("rope_factors_short.weight", [c.rotaryDims / 2], &rng, scale: 0.4, around: 1.5)
        w.add("rope_factors_long.weight", [c.rotaryDims / 2], &rng, scale: 3, around: 4)
    }
    for i in 0..<c.layers {
        let p = "blk.\(i)."
        w.add(p + "attn_norm.weight", [c.embedding], &rng, scale: 0.2, around: 1)
        if c.fused {
            w.add(p + "attn_qkv.weight", [c.embedding, q + 2 * kv], &rng)
        } else {
            w.add(p + "attn_q.weight", [c.embedding, q], &rng)
            w.add(p + "attn_k.weight", [c.embedding, kv], &rng)
            w.add(p + "attn_v.weight", [c.embedding, kv], &rng)
        }
        if c.qkvBias {
            w.add(p + "attn_q.bias", [q], &rng)
            w.add(p + "attn_k.bias", [kv], &rng)
            w.add(p + "attn_v.bias", [kv], &rng)
        }
        if c.qkNorm {
            w.add(p + "attn_q_norm.weight", [c.headDim], &rng, scale: 0.2, around: 1)
            w.add(p + "attn_k_norm.weight", [c.headDim], &rng, scale: 0.2, around: 1)
        }
        w.add(p + "attn_output.weight", [q, c.embedding], &rng)
        w.add(p + "ffn_norm.weight", [c.embedding], &rng, scale: 0.2, around: 1)
        if c.fused {
            w.add(p + "ffn_up.weight", [c.embedding, 2 * c.ffn], &rng)
        } else {
            w.add(p + "ffn_gate.weight", [c.embedding, c.ffn], &rng)
            w.add(p + "ffn_up.weight", [c.embedding, c.ffn], &rng)
        }
        w.add(p + "ffn_down.weight", [c.ffn, c.embedding], &rng)
    }
    var g = GGUFWriter()
    let a = c.arch
    g.set("general.architecture", .string(a))
    g.set("\(a).embedding_length", .uint32(UInt32(c.embedding)))
    g.set("\(a).block_count", .uint32(UInt32(c.layers)))
    g.set("\(a).feed_forward_length", .uint32(UInt32(c.ffn)))
    g.set("\(a).attention.head_count", .uint32(UInt32(c.heads)))
    g.set("\(a).attention.head_count_kv", .uint32(UInt32(c.kvHeads)))
    g.set("\(a).context_length", .uint32(64))
    g.set("\(a).attention.layer_norm_rms_epsilon", .float32(Float(c.eps)))
    g.set("\(a).rope.freq_base", .float32(Float(c.ropeBase)))
    if c.rotaryDims != c.headDim { g.set("\(a).rope.dimension_count", .uint32(UInt32(c.rotaryDims))) }
    if c.longRope || c.yarnFactor != nil || c.temperature != nil {
        g.set("\(a).rope.scaling.original_context_length", .uint32(UInt32(c.originalContext)))
    }
    if let f = c.yarnFactor {
        g.set("\(a).rope.scaling.type", .string("yarn"))
        g.set("\(a).rope.scaling.factor", .float32(Float(f)))
    }
    if let f = c.ropeAttnFactor { g.set("\(a).rope.scaling.attn_factor", .float32(Float(f))) }
    if let t = c.temperature { g.set("\(a).attention.temperature_scale", .float32(Float(t))) }
    if let (e, r, s, l) = c.granite {
        g.set("\(a).embedding_scale", .float32(Float(e)))
        g.set("\(a).residual_scale", .float32(Float(r)))
        g.set("\(a).attention.scale", .float32(Float(s)))
        g.set("\(a).logit_scale", .float32(Float(l)))
    }
    for name in w.tensors.keys.sorted() {
        let shape = w.shapes[name]!, values = w.tensors[name]!.map { Float($0) }
        guard shape.count == 2, matrices != .f32 else {
            g.addTensor(name, shape: shape, floats: values)
            continue
        }
        // Round to nearest even: Float16's own conversion, and for bfloat16 the top half of the
        // fp32 bits after adding half an ulp (ties to even).
        let bits: [UInt16] = values.map { v in
            if matrices == .f16 { return Float16(v).bitPattern }
            let b = v.bitPattern
            return UInt16((b + 0x7FFF + ((b >> 16) & 1)) >> 16)
        }
        w.tensors[name] = bits.map { matrices == .f16 ? Double(Float16(bitPattern: $0)) : Double(Float(bitPattern: UInt32($0) << 16)) }
        g.addTensor(name, shape: shape, type: matrices, data: bits.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
    }
    return (g.serialize(), w)
}

/// The naive fp64 forward of `c`, written from the papers and model cards rather than from our
/// ops: logits for every position of `tokens` (the context is `context` tokens, for LongRoPE).
func naiveFamilyForward(_ c: FamilyTinyConfig, _ w: TinyWeights, tokens: [Int], context: Int) -> [[Double]] {
    func matvec(_ name: String, _ x: [Double], rows: Range<Int>? = nil) -> [Double] {
        let m = w.tensors[name]!, inputs = w.shapes[name]![0], outputs = w.shapes[name]![1]
        return (rows ?? 0..<outputs).map { o in (0..<inputs).reduce(0) { $0 + m[o * inputs + $1] * x[$1] } }
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
    let d = c.headDim, r = c.rotaryDims
    // Per pair: angle per position and the cos/sin magnitude.
    func angle(_ i: Int, _ pos: Int) -> (Double, Double) {
        var inverse = pow(c.ropeBase, -2 * Double(i) / Double(r))
        if c.ropeFreqs { inverse /= w.tensors["rope_freqs.weight"]![i] }          // Llama 3
        if c.longRope {                                                            // LongRoPE
            let f = context > c.originalContext ? "rope_factors_long.weight" : "rope_factors_short.weight"
            return (Double(pos) * inverse / w.tensors[f]![i], c.ropeAttnFactor ?? 1)
        }
        if let s = c.yarnFactor {
            // YaRN: interpolate (θ/s) the pairs that turn fewer than β_slow = 1 times over the
            // original context, keep the ones turning more than β_fast = 32 times, blend linearly
            // between (in pair index), and scale cos/sin by 0.1·ln(s) + 1.
            func pairFor(_ turns: Double) -> Double {
                Double(r) * log(Double(c.originalContext) / (turns * 2 * Double.pi)) / (2 * log(c.ropeBase))
            }
            let low = max(0, floor(pairFor(32))), high = min(Double(r - 1), ceil(pairFor(1)))
            let keep = 1 - min(1, max(0, (Double(i) - low) / max(0.001, high - low)))
            let theta = Double(pos) * inverse
            return (theta / s * (1 - keep) + theta * keep, 0.1 * log(s) + 1)
        }
        return (Double(pos) * inverse, 1)
    }
    func rope(_ x: [Double], heads: Int, pos: Int) -> [Double] {
        var y = x
        for h in 0..<heads {
            for i in 0..<r / 2 {
                let (theta, m) = angle(i, pos)
                let (a, b) = c.neox ? (h * d + i, h * d + i + r / 2) : (h * d + 2 * i, h * d + 2 * i + 1)
                y[a] = m * (x[a] * cos(theta) - x[b] * sin(theta))
                y[b] = m * (x[a] * sin(theta) + x[b] * cos(theta))
            }
        }
        return y
    }
    let qDim = c.heads * d, kvDim = c.kvHeads * d
    let embd = w.tensors["token_embd.weight"]!
    var keys = [[[Double]]](repeating: [], count: c.layers), values = keys
    var out: [[Double]] = []
    for (pos, token) in tokens.enumerated() {
        var x = Array(embd[token * c.embedding..<(token + 1) * c.embedding]).map { $0 * (c.granite?.0 ?? 1) }
        for l in 0..<c.layers {
            let p = "blk.\(l)."
            let h = rms(x, p + "attn_norm.weight")
            var q: [Double], k: [Double], v: [Double]
            if c.fused {
                q = matvec(p + "attn_qkv.weight", h, rows: 0..<qDim)
                k = matvec(p + "attn_qkv.weight", h, rows: qDim..<qDim + kvDim)
                v = matvec(p + "attn_qkv.weight", h, rows: qDim + kvDim..<qDim + 2 * kvDim)
            } else {
                q = matvec(p + "attn_q.weight", h); k = matvec(p + "attn_k.weight", h); v = matvec(p + "attn_v.weight", h)
            }
            if c.qkvBias {
                q = zip(q, w.tensors[p + "attn_q.bias"]!).map(+)
                k = zip(k, w.tensors[p + "attn_k.bias"]!).map(+)
                v = zip(v, w.tensors[p + "attn_v.bias"]!).map(+)
            }
            if c.qkNorm { q = rms(q, p + "attn_q_norm.weight"); k = rms(k, p + "attn_k_norm.weight") }
            q = rope(q, heads: c.heads, pos: pos)
            k = rope(k, heads: c.kvHeads, pos: pos)
            if let t = c.temperature {   // Llama 4 style: longer positions attend more sharply
                let f = 1 + t * log(floor(Double(pos) / Double(c.originalContext)) + 1)
                q = q.map { $0 * f }
            }
            keys[l].append(k); values[l].append(v)
            let scale = c.granite?.2 ?? 1 / Double(d).squareRoot()
            var att = [Double](repeating: 0, count: qDim)
            for head in 0..<c.heads {
                let g = head / (c.heads / c.kvHeads)
                let qh = q[head * d..<(head + 1) * d]
                let scores = (0...pos).map { t in zip(qh, keys[l][t][g * d..<(g + 1) * d]).reduce(0) { $0 + $1.0 * $1.1 } * scale }
                let m = scores.max()!, e = scores.map { exp($0 - m) }, sum = e.reduce(0, +)
                for t in 0...pos { for j in 0..<d { att[head * d + j] += e[t] / sum * values[l][t][g * d + j] } }
            }
            let residual = c.granite?.1 ?? 1
            x = zip(x, matvec(p + "attn_output.weight", att)).map { $0 + residual * $1 }
            let h2 = rms(x, p + "ffn_norm.weight")
            let gate = c.fused ? matvec(p + "ffn_up.weight", h2, rows: 0..<c.ffn) : matvec(p + "ffn_gate.weight", h2)
            let up = c.fused ? matvec(p + "ffn_up.weight", h2, rows: c.ffn..<2 * c.ffn) : matvec(p + "ffn_up.weight", h2)
            let act = zip(gate, up).map { g, u in g / (1 + exp(-g)) * u }
            x = zip(x, matvec(p + "ffn_down.weight", act)).map { $0 + residual * $1 }
        }
        let logits = matvec(c.tied ? "token_embd.weight" : "output.weight", rms(x, "output_norm.weight"))
        out.append(logits.map { $0 / (c.granite?.3 ?? 1) })
    }
    return out
}

/// max |got − expected| / (1 + |expected|) over every logit; infinity when any logit is NaN
/// (`max` would pass a NaN over).
func worstRelativeDifference(_ got: [[Float]], _ expected: [[Double]]) -> Double {
    var worst = 0.0
    for (g, e) in zip(got, expected) {
        for (a, b) in zip(g, e) {
            let d = abs(Double(a) - b) / (1 + abs(b))
            if !(d <= worst) { worst = d.isNaN ? .infinity : d }
        }
    }
    return worst
}

/// The newer families against a naive fp64 forward of our own (a second oracle beside
/// `FamilyReferenceTests`' llama.cpp data): biases, Q/K norms, fused weights, partial NEOX rope,
/// Llama 3 frequency factors, LongRoPE, YaRN, attention temperature and Granite's multipliers,
/// prefilled in uneven batches then decoded token by token.
@Suite struct FamilySyntheticTests {
    @Test(arguments: ["llama3", "qwen2", "qwen3", "phi3", "granite", "mistral3"])
    func forwardMatchesNaiveImplementation(_ family: String) throws {
        let config = FamilyTinyConfig.of(family)
        let (bytes, weights) = makeFamilyTinyModel(config, seed: 11)
        let model = try loadModel(GGUFFile(contents: bytes))
        let tokens = [3, 17, 0, 39, 5, 5, 22, 8, 1, 30, 12, 7, 7, 2]
        let context = 16
        let expected = naiveFamilyForward(config, weights, tokens: tokens, context: context)
        let state = model.makeState(contextSize: context, maxBatch: 3)
        var got: [[Float]] = []
        let first = try #require(model.forward(tokens[0..<8].map(Int32.init), state: state, logitRows: 0..<8))
        got += (0..<8).map(first.copyRow)
        for t in tokens[8...] {
            got.append(try #require(model.forward([Int32(t)], state: state, logitRows: 0..<1)).copyRow(0))
        }
        let worst = worstRelativeDifference(got, expected)
        // fp16 K/V storage bounds the agreement; a wrong op would miss by O(1).
        #expect(worst < 5e-3, "\(family): worst relative difference \(worst)")
        let largest = expected.joined().map(abs).max()!
        #expect(largest > 1, "\(family): logits too small to show a wrong op")
        print("\(family): worst relative difference from the fp64 forward \(worst), max |logit| \(largest)")
    }

    /// GGUF files whose matrices are F16 or BF16 (as llama.cpp's converter writes unquantized
    /// models), loaded as they are onto the float kernels, against the naive fp64 forward of the
    /// same rounded weights: untied (Llama 3) and tied (Qwen 2, whose BF16 embedding is also the
    /// head); prefilled in a batch, then decoded token by token.
    @Test(arguments: [("llama3", GGMLType.f16), ("llama3", .bf16), ("qwen2", .f16), ("qwen2", .bf16)])
    func sixteenBitMatricesMatchNaiveForward(_ family: String, _ type: GGMLType) throws {
        let config = FamilyTinyConfig.of(family)
        let (bytes, weights) = makeFamilyTinyModel(config, seed: 12, matrices: type)
        let file = try GGUFFile(contents: bytes)
        #expect(file.tensor(named: "blk.0.ffn_down.weight")?.type == type)
        let model = try loadModel(file)
        let tokens = [3, 17, 0, 39, 5, 5, 22, 8, 1, 30, 12, 7]
        let expected = naiveFamilyForward(config, weights, tokens: tokens, context: 16)
        let state = model.makeState(contextSize: 16, maxBatch: 8)
        let first = try #require(model.forward(tokens[0..<8].map(Int32.init), state: state, logitRows: 0..<8))
        var got = (0..<8).map(first.copyRow)
        for t in tokens[8...] { got.append(try #require(model.forward([Int32(t)], state: state, logitRows: 0..<1)).copyRow(0)) }
        let worst = worstRelativeDifference(got, expected)
        #expect(worst < 5e-3, "\(family) \(type): worst relative difference \(worst)")
        #expect(expected.joined().map(abs).max()! > 1, "\(family): logits too small to show a wrong op")
    }
}
