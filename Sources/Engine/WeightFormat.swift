import CKernels
import GGUF

/// Element formats a matmul weight can have: the GGUF types our models use and the OCP MX
/// formats (32-element blocks with a ue8m0 power-of-two scale).
public enum WeightFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    case f32, f16, bf16, q4_0, q4_1, q5_0, q5_1, q8_0, q3_K, q4_K, q5_K, q6_K, iq4_nl, iq4_xs
    case mxint8, mxfp8_e4m3, mxfp8_e5m2, mxfp4

    /// The GGUF type with the same block layout, if there is one.
    public init?(_ type: GGMLType) {
        switch type {
        case .f32: self = .f32
        case .f16: self = .f16
        case .bf16: self = .bf16
        case .q4_0: self = .q4_0
        case .q4_1: self = .q4_1
        case .q5_0: self = .q5_0
        case .q5_1: self = .q5_1
        case .iq4_nl: self = .iq4_nl
        case .iq4_xs: self = .iq4_xs
        case .q8_0: self = .q8_0
        case .q3_K: self = .q3_K
        case .q4_K: self = .q4_K
        case .q5_K: self = .q5_K
        case .q6_K: self = .q6_K
        default: return nil
        }
    }

    /// True for the OCP MX formats.
    public var isMX: Bool { self == .mxint8 || self == .mxfp8_e4m3 || self == .mxfp8_e5m2 || self == .mxfp4 }

    /// Elements per block.
    public var blockSize: Int { Int(info.block) }
    /// Bytes per block in the original (GGUF or MX) layout.
    public var blockBytes: Int { Int(info.block_bytes) }
    /// Bytes of one row of `k` elements in the original layout.
    public func rowBytes(k: Int) -> Int { k / blockSize * blockBytes }

    /// Whether the kernels multiply this format with int8-quantized activations (otherwise fp32).
    public var usesQuantizedActivations: Bool { info.int8_path != 0 }

    /// How the kernels quantize activations for this format (nil: fp32 activations). The GGUF
    /// formats take llama.cpp's pairing (Q4_0/Q5_0/Q8_0/IQ4_NL → Q8_0, Q4_1/Q5_1 → Q8_1, K-quants (Q3_K to Q6_K) and IQ4_XS → Q8_K),
    /// so their int8 products equal llama.cpp's; the MX formats use our per-32 scheme.
    public var activationQuantization: ActivationQuantization? { ActivationQuantization(info.act) }

    /// The scale encoding (`fp16` for GGUF types, `ue8m0` for MX, none for F32/F16/BF16).
    public var scaleFormat: ScaleFormat {
        switch info.scale {
        case CK_SCALE_FP16: return .fp16
        case CK_SCALE_UE8M0: return .ue8m0
        default: return .none
        }
    }

    public var description: String { rawValue }

    var ck: ck_weight_format {
        switch self {
        case .f32: return CK_WF_F32
        case .f16: return CK_WF_F16
        case .bf16: return CK_WF_BF16
        case .q4_0: return CK_WF_Q4_0
        case .q4_1: return CK_WF_Q4_1
        case .q5_0: return CK_WF_Q5_0
        case .q5_1: return CK_WF_Q5_1
        case .iq4_nl: return CK_WF_IQ4_NL
        case .iq4_xs: return CK_WF_IQ4_XS
        case .q8_0: return CK_WF_Q8_0
        case .q3_K: return CK_WF_Q3_K
        case .q4_K: return CK_WF_Q4_K
        case .q5_K: return CK_WF_Q5_K
        case .q6_K: return CK_WF_Q6_K
        case .mxint8: return CK_WF_MXINT8
        case .mxfp8_e4m3: return CK_WF_MXFP8_E4M3
        case .mxfp8_e5m2: return CK_WF_MXFP8_E5M2
        case .mxfp4: return CK_WF_MXFP4
        }
    }

    var info: ck_format_info { ck_weight_format_info(ck) }
}

/// An activation quantization scheme (CKernels' `ck_act_format`; all produce int8 blocks of 32
/// with a scale and scaled block sums).
public enum ActivationQuantization: String, Sendable, CaseIterable {
    /// Per 32: scale amax/127 (fp32), q = rint(x / scale). Ours, for the MX formats.
    case q8_32
    /// Per 32: q = rint(x · 127/amax), scale fp16(amax/127). llama.cpp's Q8_0 (x86).
    case q8_0
    /// As q8_0, with scale·sum rounded through fp16 from the fp32 scale. llama.cpp's Q8_1.
    case q8_1
    /// Per 256: q = rint(x · 127/amax), scale 1/(127/amax) in fp32. llama.cpp's Q8_K.
    case q8_K

    init?(_ f: ck_act_format) {
        switch f {
        case CK_ACT_Q8_32: self = .q8_32
        case CK_ACT_Q8_0: self = .q8_0
        case CK_ACT_Q8_1: self = .q8_1
        case CK_ACT_Q8_K: self = .q8_K
        default: return nil
        }
    }

    var ck: ck_act_format {
        switch self {
        case .q8_32: return CK_ACT_Q8_32
        case .q8_0: return CK_ACT_Q8_0
        case .q8_1: return CK_ACT_Q8_1
        case .q8_K: return CK_ACT_Q8_K
        }
    }

    /// Elements sharing one scale.
    public var groupSize: Int { self == .q8_K ? 256 : 32 }
}

/// How a weight format stores its block scales.
public enum ScaleFormat: String, Sendable {
    case none, fp16, ue8m0
}

/// Which kernel implementation runs: the scalar reference (the specification) or a SIMD twin.
/// The emulated paths run the AVX-512 kernel source compiled against SIMDe and the AMX kernel
/// over the portable tile layer: for testing on CPUs without those units, never chosen by default.
public enum KernelPath: Int32, Sendable, CaseIterable, CustomStringConvertible {
    case ref = 0, avx2 = 1, avx512 = 2, amx = 3, avx512Emulated = 4, amxEmulated = 5
    /// ARM64: plain NEON (ARMv8.0), the dot-product extension (SDOT), the int8 matrix multiply (USMMLA).
    case neon = 6, dotprod = 7, i8mm = 8

    /// Whether this CPU (and OS, for AMX's tile permission) runs the path.
    public var isSupported: Bool { ck_kernel_path_supported(rawValue) != 0 }

    /// The fastest path this CPU supports (CPUID; on ARM64 the reported features).
    public static var best: KernelPath { KernelPath(rawValue: Int32(ck_best_kernel_path().rawValue))! }

    /// The path used when a call does not name one: the `force` override, else
    /// `QUANTA_KERNEL_PATH=ref|avx2|avx512|amx|avx512-emu|amx-emu|neon|dotprod|i8mm` (read once),
    /// else the best supported. Requests the CPU cannot run are lowered to the best supported path.
    public static var active: KernelPath { KernelPath(rawValue: Int32(ck_kernel_path_get().rawValue))! }

    /// Forces the process-wide path (nil restores the environment/CPUID choice); returns the path in effect.
    @discardableResult
    public static func force(_ path: KernelPath?) -> KernelPath {
        KernelPath(rawValue: Int32(ck_kernel_path_set(path.map { Int32($0.rawValue) } ?? -1).rawValue))!
    }

    public var description: String {
        switch self {
        case .ref: return "ref"
        case .avx2: return "avx2"
        case .avx512: return "avx512"
        case .amx: return "amx"
        case .avx512Emulated: return "avx512-emu"
        case .amxEmulated: return "amx-emu"
        case .neon: return "neon"
        case .dotprod: return "dotprod"
        case .i8mm: return "i8mm"
        }
    }
}
