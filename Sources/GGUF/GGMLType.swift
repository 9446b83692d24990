/// Tensor element types (ggml_type). Raw values are the ids stored in GGUF files; the reader
/// knows the block geometry of all of them so it can validate any file, even types that the
/// engine cannot compute with.
public enum GGMLType: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    case f32 = 0, f16 = 1, q4_0 = 2, q4_1 = 3, q5_0 = 6, q5_1 = 7, q8_0 = 8, q8_1 = 9
    case q2_K = 10, q3_K = 11, q4_K = 12, q5_K = 13, q6_K = 14, q8_K = 15
    case iq2_xxs = 16, iq2_xs = 17, iq3_xxs = 18, iq1_s = 19, iq4_nl = 20, iq3_s = 21, iq2_s = 22, iq4_xs = 23
    case i8 = 24, i16 = 25, i32 = 26, i64 = 27, f64 = 28, iq1_m = 29, bf16 = 30
    case tq1_0 = 34, tq2_0 = 35, mxfp4 = 39

    /// Elements per block.
    public var blockSize: Int {
        switch self {
        case .f32, .f16, .bf16, .i8, .i16, .i32, .i64, .f64: return 1
        case .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q8_1, .iq4_nl, .mxfp4: return 32
        default: return 256
        }
    }

    /// Bytes per block.
    public var blockBytes: Int {
        switch self {
        case .f32, .i32: return 4
        case .f16, .bf16, .i16: return 2
        case .i8: return 1
        case .i64, .f64: return 8
        case .q4_0: return 18
        case .q4_1: return 20
        case .q5_0: return 22
        case .q5_1: return 24
        case .q8_0: return 34
        case .q8_1: return 36
        case .q2_K: return 84
        case .q3_K: return 110
        case .q4_K: return 144
        case .q5_K: return 176
        case .q6_K: return 210
        case .q8_K: return 292
        case .iq2_xxs: return 66
        case .iq2_xs: return 74
        case .iq3_xxs: return 98
        case .iq1_s: return 50
        case .iq4_nl: return 18
        case .iq3_s: return 110
        case .iq2_s: return 82
        case .iq4_xs: return 136
        case .iq1_m: return 56
        case .tq1_0: return 54
        case .tq2_0: return 66
        case .mxfp4: return 17
        }
    }

    /// Bits per weight on disk.
    public var bitsPerWeight: Double { Double(blockBytes * 8) / Double(blockSize) }

    /// Bytes for `elements` values, or nil if that is not a whole number of blocks or overflows.
    public func byteCount(elements: UInt64) -> UInt64? {
        let bs = UInt64(blockSize)
        guard elements % bs == 0 else { return nil }
        let (bytes, overflow) = (elements / bs).multipliedReportingOverflow(by: UInt64(blockBytes))
        return overflow ? nil : bytes
    }

    /// The name llama.cpp prints (`Q4_K`, `F16`, ...).
    public var description: String {
        switch self {
        case .f32: return "F32"
        case .f16: return "F16"
        case .q4_0: return "Q4_0"
        case .q4_1: return "Q4_1"
        case .q5_0: return "Q5_0"
        case .q5_1: return "Q5_1"
        case .q8_0: return "Q8_0"
        case .q8_1: return "Q8_1"
        case .q2_K: return "Q2_K"
        case .q3_K: return "Q3_K"
        case .q4_K: return "Q4_K"
        case .q5_K: return "Q5_K"
        case .q6_K: return "Q6_K"
        case .q8_K: return "Q8_K"
        case .iq2_xxs: return "IQ2_XXS"
        case .iq2_xs: return "IQ2_XS"
        case .iq3_xxs: return "IQ3_XXS"
        case .iq1_s: return "IQ1_S"
        case .iq4_nl: return "IQ4_NL"
        case .iq3_s: return "IQ3_S"
        case .iq2_s: return "IQ2_S"
        case .iq4_xs: return "IQ4_XS"
        case .i8: return "I8"
        case .i16: return "I16"
        case .i32: return "I32"
        case .i64: return "I64"
        case .f64: return "F64"
        case .iq1_m: return "IQ1_M"
        case .bf16: return "BF16"
        case .tq1_0: return "TQ1_0"
        case .tq2_0: return "TQ2_0"
        case .mxfp4: return "MXFP4"
        }
    }
}
