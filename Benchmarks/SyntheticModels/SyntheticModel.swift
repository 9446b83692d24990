#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GGUF

/// A random-weight GGUF with a published model's shape and llama.cpp's type mix for a
/// quantization preset: every tensor the real file has, in the real types, so loading and
/// running it reads the same bytes per token; the text it produces is noise.
public struct SyntheticModel: Sendable {
    public let shape: SyntheticShape
    public let mix: QuantMix

    /// One tensor of the file: ggml shape (innermost first) and type.
    public struct Tensor: Sendable, Equatable {
        public let name: String, shape: [Int], type: GGMLType
        public var elements: Int { shape.reduce(1, *) }
    }

    public init(shape: SyntheticShape, mix: QuantMix) {
        self.shape = shape
        self.mix = mix
    }

    /// Parses `SHAPE[:MIX[,MIX...]]` (`llama3.2-1b:q4_0`, `qwen2.5-1.5b`), one model per mix (the
    /// shape's default mix when none is named). Errors are one line listing the presets.
    public static func parse(_ spec: String) throws(SyntheticSpecError) -> [SyntheticModel] {
        let parts = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let shape = SyntheticShape.preset(named: parts[0].lowercased()) else {
            throw SyntheticSpecError("unknown shape '\(parts[0])'")
        }
        guard parts.count == 2 else { return [SyntheticModel(shape: shape, mix: shape.defaultMix)] }
        var models: [SyntheticModel] = []
        for name in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
            guard let mix = QuantMix(rawValue: name.lowercased()) else { throw SyntheticSpecError("unknown type '\(name)'") }
            models.append(SyntheticModel(shape: shape, mix: mix))
        }
        return models
    }

    /// `shape:mix`, as parsed.
    public var spec: String { "\(shape.name):\(mix.rawValue)" }

    /// Every tensor in file order: embedding, per-layer tensors, output norm and head.
    public var tensors: [Tensor] {
        var out: [Tensor] = []
        forEachTensor { name, dims, layer in out.append(Tensor(name: name, shape: dims, type: type(name, dims, layer))) }
        return out
    }

    /// Bytes of all tensor data.
    public var weightBytes: Int { tensors.reduce(0) { $0 + Int($1.type.byteCount(elements: UInt64($1.elements))!) } }

    private func type(_ name: String, _ dims: [Int], _ layer: Int?) -> GGMLType {
        dims.count == 1 ? .f32 : mix.type(name, columns: dims[0], layer: layer, layers: shape.layers, tied: shape.tiedOutput,
                                          queriesPerKV: shape.heads / shape.kvHeads)
    }

    /// The tensors of llama.cpp's graph for this architecture (names as in its `LLM_TENSOR_*`).
    private func forEachTensor(_ body: (String, [Int], Int?) -> Void) {
        let s = shape, q = s.heads * s.headDim, kv = s.kvHeads * s.headDim
        body("token_embd.weight", [s.embedding, s.vocabulary], nil)
        if s.llama3Rope != nil { body("rope_freqs.weight", [s.rotaryDims / 2], nil) }
        if s.architecture == "phi3" {
            body("rope_factors_long.weight", [s.rotaryDims / 2], nil)
            body("rope_factors_short.weight", [s.rotaryDims / 2], nil)
        }
        for i in 0..<s.layers {
            let p = "blk.\(i)."
            body(p + "attn_norm.weight", [s.embedding], i)
            if s.architecture == "phi3" {
                body(p + "attn_qkv.weight", [s.embedding, q + 2 * kv], i)
            } else {
                body(p + "attn_q.weight", [s.embedding, q], i)
                body(p + "attn_k.weight", [s.embedding, kv], i)
                body(p + "attn_v.weight", [s.embedding, kv], i)
            }
            if s.architecture == "qwen2" {
                body(p + "attn_q.bias", [q], i)
                body(p + "attn_k.bias", [kv], i)
                body(p + "attn_v.bias", [kv], i)
            }
            if s.architecture == "qwen3" || s.architecture == "gemma3" {
                body(p + "attn_q_norm.weight", [s.headDim], i)
                body(p + "attn_k_norm.weight", [s.headDim], i)
            }
            body(p + "attn_output.weight", [q, s.embedding], i)
            if s.architecture == "gemma3" { body(p + "post_attention_norm.weight", [s.embedding], i) }
            body(p + "ffn_norm.weight", [s.embedding], i)
            if s.architecture == "phi3" {
                body(p + "ffn_up.weight", [s.embedding, 2 * s.feedForward], i)   // gate rows, then up rows
            } else {
                body(p + "ffn_gate.weight", [s.embedding, s.feedForward], i)
                body(p + "ffn_up.weight", [s.embedding, s.feedForward], i)
            }
            body(p + "ffn_down.weight", [s.feedForward, s.embedding], i)
            if s.architecture == "gemma3" { body(p + "post_ffw_norm.weight", [s.embedding], i) }
        }
        body("output_norm.weight", [s.embedding], nil)
        if !s.tiedOutput { body("output.weight", [s.embedding, s.vocabulary], nil) }
    }

    /// Writes the file to `path`, one tensor in memory at a time.
    public func write(to path: String) throws {
        var writer = GGUFWriter()
        for (key, value) in metadata { writer.set(key, value) }
        var plan: [String: Tensor] = [:]
        for t in tensors {
            writer.declareTensor(t.name, shape: t.shape, type: t.type)
            plan[t.name] = t
        }
        try writer.write(to: path) { name, bytes in fill(plan[name]!, bytes) }
    }

    /// A tensor's values: norms 1 (Gemma's stored norms include its +1), biases and LongRoPE
    /// factors as the real models' order of magnitude, Llama 3's rope divisors by its formula,
    /// weight matrices random with a spread of 1/√(row length) so that each product of a
    /// normalised vector has unit spread (the embedding: unit spread).
    private func fill(_ t: Tensor, _ bytes: UnsafeMutableRawBufferPointer) {
        if t.name.hasSuffix("norm.weight") || t.name.hasPrefix("rope_factors") {
            for i in 0..<t.elements { bytes.storeBytes(of: Float(1), toByteOffset: 4 * i, as: Float.self) }
        } else if t.name == "rope_freqs.weight", let r = shape.llama3Rope {
            for (i, f) in llama3RopeDivisors(r).enumerated() { bytes.storeBytes(of: f, toByteOffset: 4 * i, as: Float.self) }
        } else {
            let sigma = t.name == "token_embd.weight" ? 1 : 1 / Float(t.shape[0]).squareRoot()
            let scaled = t.name.hasSuffix(".bias") ? 0.02 : sigma
            RandomWeights.fill(bytes, type: t.type, sigma: scaled, seed: fnv1a(spec + "/" + t.name))
        }
    }

    /// Llama 3's rope scaling as `rope_freqs.weight` holds it: per rotary pair, the divisor of
    /// its frequency (1 for short wavelengths, `factor` for long ones, interpolated between).
    private func llama3RopeDivisors(_ r: (factor: Float, low: Float, high: Float, original: Int)) -> [Float] {
        let lowWavelength = Float(r.original) / r.low, highWavelength = Float(r.original) / r.high
        return (0..<shape.rotaryDims / 2).map { i in
            let frequency = 1 / powf(shape.ropeBase, Float(2 * i) / Float(shape.rotaryDims))
            let wavelength = 2 * Float.pi / frequency
            if wavelength < highWavelength { return 1 }
            if wavelength > lowWavelength { return r.factor }
            let smooth = (Float(r.original) / wavelength - r.low) / (r.high - r.low)
            return 1 / ((1 - smooth) / r.factor + smooth)
        }
    }

    /// General, architecture and tokenizer keys. The tokenizer is SentencePiece-style: `<unk>`,
    /// `<s>`, `</s>`, the 256 byte tokens, then made-up pieces up to the vocabulary size.
    var metadata: [(String, GGUFValue)] {
        let s = shape, a = s.architecture
        var keys: [(String, GGUFValue)] = [
            ("general.architecture", .string(a)),
            ("general.name", .string("synthetic \(spec) (random weights)")),
            ("general.file_type", .uint32(mix.fileType)),
            ("general.quantization_version", .uint32(2)),
            ("\(a).context_length", .uint32(UInt32(s.context))),
            ("\(a).embedding_length", .uint32(UInt32(s.embedding))),
            ("\(a).block_count", .uint32(UInt32(s.layers))),
            ("\(a).feed_forward_length", .uint32(UInt32(s.feedForward))),
            ("\(a).attention.head_count", .uint32(UInt32(s.heads))),
            ("\(a).attention.head_count_kv", .uint32(UInt32(s.kvHeads))),
            ("\(a).rope.freq_base", .float32(s.ropeBase)),
            ("\(a).attention.layer_norm_rms_epsilon", .float32(s.rmsEps)),
        ]
        keys += s.extraKeys.map { ("\(a).\($0.0)", $0.1) }
        var tokens = ["<unk>", "<s>", "</s>"] + (0..<256).map { "<0x" + hex2($0) + ">" }
        var types: [Int32] = [2, 3, 3] + [Int32](repeating: 6, count: 256)
        tokens.reserveCapacity(s.vocabulary)
        while tokens.count < s.vocabulary {
            tokens.append("\u{2581}" + String(tokens.count, radix: 36))
            types.append(1)
        }
        keys += [
            ("tokenizer.ggml.model", .string("llama")),
            ("tokenizer.ggml.tokens", .array(.string(tokens))),
            ("tokenizer.ggml.scores", .array(.float32((0..<s.vocabulary).map { -Float($0) }))),
            ("tokenizer.ggml.token_type", .array(.int32(types))),
            ("tokenizer.ggml.unknown_token_id", .uint32(0)),
            ("tokenizer.ggml.bos_token_id", .uint32(1)),
            ("tokenizer.ggml.eos_token_id", .uint32(2)),
            ("tokenizer.ggml.add_bos_token", .bool(true)),
            ("tokenizer.ggml.add_space_prefix", .bool(false)),
        ]
        return keys
    }
}

/// A `--synthetic` spec that names no preset.
public struct SyntheticSpecError: Error, CustomStringConvertible {
    public let problem: String
    init(_ problem: String) { self.problem = problem }
    public var description: String {
        "\(problem) (shapes: \(SyntheticShape.presets.map(\.name).joined(separator: ", ")); "
            + "types: \(QuantMix.allCases.map(\.rawValue).joined(separator: ", ")))"
    }
}

private func hex2(_ v: Int) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[v >> 4], digits[v & 15]])
}

/// FNV-1a of a string: a stable per-tensor seed.
func fnv1a(_ s: String) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h
}
