import GGUF

/// A llama.cpp quantization preset (`llama-quantize`'s ftype): which type each tensor gets.
/// The rules are facts read from llama.cpp's `llama_tensor_get_type` (src/llama-quant.cpp), for
/// the presets listed here, followed by its fallback for rows that are not a whole number of the
/// type's blocks.
public enum QuantMix: String, CaseIterable, Sendable {
    case q4_0, q4_1, q5_0, q8_0, q6_K = "q6_k", q3_K_S = "q3_k_s", q3_K_M = "q3_k_m", q3_K_L = "q3_k_l", q4_K_M = "q4_k_m", q5_K_M = "q5_k_m"
    /// Every matrix in binary16 or bfloat16, as llama.cpp's converter writes an unquantized model
    /// (`--outtype f16`, `--outtype bf16`).
    case f16, bf16
    /// IQ4_XS, as llama-quantize writes it without an importance matrix.
    case iq4_xs

    /// The type of every quantized tensor the rules below do not single out.
    var baseType: GGMLType {
        switch self {
        case .q4_0: return .q4_0
        case .q4_1: return .q4_1
        case .q5_0: return .q5_0
        case .q8_0: return .q8_0
        case .q6_K: return .q6_K
        case .q3_K_S, .q3_K_M, .q3_K_L: return .q3_K
        case .q4_K_M: return .q4_K
        case .q5_K_M: return .q5_K
        case .f16: return .f16
        case .bf16: return .bf16
        case .iq4_xs: return .iq4_xs
        }
    }

    /// `general.file_type` (llama.cpp's `llama_ftype`).
    var fileType: UInt32 {
        switch self {
        case .q4_0: return 2
        case .q4_1: return 3
        case .q8_0: return 7
        case .q5_0: return 8
        case .q3_K_S: return 11
        case .q3_K_M: return 12
        case .q3_K_L: return 13
        case .q4_K_M: return 15
        case .q5_K_M: return 17
        case .q6_K: return 18
        case .f16: return 1
        case .bf16: return 32
        case .iq4_xs: return 30
        }
    }

    /// The type of a 2-D weight `name` (`blk.N.attn_v.weight`, ...) with `columns` values per row
    /// in layer `layer` of `layers`; `tied`: the token embedding is also the output head;
    /// `queriesPerKV`: attention heads per K/V head. What llama.cpp writes.
    func type(_ name: String, columns: Int, layer: Int?, layers: Int, tied: Bool, queriesPerKV: Int) -> GGMLType {
        var type = baseType
        if self == .f16 || self == .bf16 { return baseType }
        if name == "output.weight" || (tied && name == "token_embd.weight") {
            // The output head: Q8_0 when its rows do not divide into the base type's blocks,
            // otherwise Q6_K unless the base is Q8_0.
            if columns % baseType.blockSize != 0 { type = .q8_0 } else if baseType != .q8_0 { type = .q6_K }
        } else if self == .q4_K_M || self == .q5_K_M, let layer {
            // One layer in three, and the first and last eighth, get more bits in V and FFN-down;
            // fused QKV is one step up throughout (Q4_K_M: Q5_K, Q5_K_M: Q6_K).
            let moreBits = layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2
            if name.hasSuffix(".attn_v.weight") && moreBits { type = .q6_K }
            if name.hasSuffix(".ffn_down.weight") && moreBits { type = .q6_K }
            if name.hasSuffix(".attn_qkv.weight") { type = self == .q4_K_M ? .q5_K : .q6_K }
        } else if self == .q3_K_M, let layer {
            // V in Q5_K for the first two layers and Q4_K after; FFN-down in Q5_K for the first
            // sixteenth and Q4_K after; the attention output and fused QKV in Q4_K.
            if name.hasSuffix(".attn_v.weight") { type = layer < 2 ? .q5_K : .q4_K }
            if name.hasSuffix(".ffn_down.weight") { type = layer < layers / 16 ? .q5_K : .q4_K }
            if name.hasSuffix(".attn_output.weight") || name.hasSuffix(".attn_qkv.weight") { type = .q4_K }
        } else if self == .q3_K_L {
            // V, FFN-down and the attention output in Q5_K, fused QKV in Q4_K (Q3_K_S: no rule
            // beyond the head's).
            if name.hasSuffix(".attn_v.weight") || name.hasSuffix(".ffn_down.weight") || name.hasSuffix(".attn_output.weight") { type = .q5_K }
            if name.hasSuffix(".attn_qkv.weight") { type = .q4_K }
        } else if self == .iq4_xs, let layer {
            // V in Q5_K when four or more query heads share a K/V head; FFN-down of the first
            // eighth of the layers in Q5_K (no importance matrix).
            if name.hasSuffix(".attn_v.weight") && queriesPerKV >= 4 { type = .q5_K }
            if name.hasSuffix(".ffn_down.weight") && layer < layers / 8 { type = .q5_K }
        }
        return Self.fallback(type, columns: columns)
    }

    /// llama.cpp's `tensor_type_fallback` for the types these mixes produce: a 256-value block
    /// type on rows that are not a multiple of 256 becomes a 32-value one.
    static func fallback(_ type: GGMLType, columns: Int) -> GGMLType {
        guard columns % type.blockSize != 0 else { return type }
        switch type {
        case .q3_K: return .q4_0
        case .q4_K: return .q5_0
        case .q5_K: return .q5_1
        case .q6_K: return .q8_0
        case .iq4_xs: return .iq4_nl
        default: return .f16
        }
    }
}
