// Load-time choices of a `LocalLanguageModel`, in Quanta's own types so callers (the CLI
// included) never import the engine layers.
import LanguageModelAPI
import Architectures
import Engine
import Sampling

extension LocalLanguageModel {
    /// How matmul weights are held in memory.
    public enum WeightFormat: String, Sendable, CaseIterable, Hashable {
        /// As stored in the GGUF file (repacked for the kernels at load).
        case native
        /// Converted to fp32 at load (the OpenBLAS reference path).
        case f32
        /// Converted to binary16 at load (round to nearest even): half of f32's bytes, and
        /// decode on the float kernels instead of OpenBLAS.
        case f16
        /// Converted to bfloat16 at load (round to nearest even), on the same kernels as f16.
        case bf16
        /// OCP MXINT8 blocks (int8, power-of-two scale per 32).
        case mxint8
        /// OCP MXFP8 with E4M3 elements.
        case mxfp8_e4m3
        /// OCP MXFP8 with E5M2 elements.
        case mxfp8_e5m2
        /// OCP MXFP4 (E2M1 elements).
        case mxfp4

        /// The command-line spelling (the raw value); nil when unknown.
        public init?(argument: String) { self.init(rawValue: argument) }

        var mode: WeightMode {
            switch self {
            case .native: return .native
            case .f32: return .converted(.f32)
            case .f16: return .converted(.f16)
            case .bf16: return .converted(.bf16)
            case .mxint8: return .converted(.mxint8)
            case .mxfp8_e4m3: return .converted(.mxfp8_e4m3)
            case .mxfp8_e5m2: return .converted(.mxfp8_e5m2)
            case .mxfp4: return .converted(.mxfp4)
            }
        }
    }

    /// How keys and values are stored in the KV cache.
    public enum KVCacheType: String, Sendable, CaseIterable, Hashable {
        /// IEEE half precision, 2 bytes per element (llama.cpp's default).
        case f16
        /// ggml Q8_0 blocks, 1.06 bytes per element.
        case q8_0
        /// OCP MXFP8 E4M3 blocks, 1.03 bytes per element.
        case mxfp8_e4m3

        /// The command-line spelling (the raw value); nil when unknown.
        public init?(argument: String) { self.init(rawValue: argument) }

        package var format: KVCacheFormat {
            switch self {
            case .f16: return .f16
            case .q8_0: return .q8_0
            case .mxfp8_e4m3: return .mxfp8_e4m3
            }
        }
    }

    /// The sampler settings a request uses where `GenerationOptions` says nothing (FM27 options
    /// have no min-p or repetition penalty; these are Quanta's load-time additions). The defaults
    /// are llama.cpp's.
    public struct SamplingDefaults: Sendable, Hashable {
        /// Softmax temperature when the request gives none; 0 = greedy.
        public var temperature: Double
        /// Top-k when the request's sampling mode is nil (0 = off).
        public var topK: Int
        /// Top-p when the request's sampling mode is nil (1 = off).
        public var topP: Double
        /// Min-p, for every sampled request (0 = off).
        public var minP: Double
        /// Repetition penalty over the last `repetitionWindow` tokens (1 = off).
        public var repetitionPenalty: Double
        /// Tokens the repetition penalty looks back over.
        public var repetitionWindow: Int
        /// OpenAI's frequency penalty: subtracted from a logit once per time the answer already
        /// holds its token (0 = off).
        public var frequencyPenalty: Double = 0
        /// OpenAI's presence penalty: subtracted from the logit of every token the answer already
        /// holds (0 = off).
        public var presencePenalty: Double = 0
        /// The seed of requests whose sampling mode names none; nil = a random seed per request.
        public var seed: UInt64?

        /// Settings; the defaults are llama.cpp's.
        public init(temperature: Double = 0.8, topK: Int = 40, topP: Double = 0.95, minP: Double = 0.05,
                    repetitionPenalty: Double = 1.0, repetitionWindow: Int = 64, seed: UInt64? = nil) {
            self.seed = seed
            self.temperature = temperature
            self.topK = topK
            self.topP = topP
            self.minP = minP
            self.repetitionPenalty = repetitionPenalty
            self.repetitionWindow = repetitionWindow
        }

        /// Why these settings cannot be used, or nil.
        public var invalidReason: String? {
            SamplingParameters(temperature: Float(temperature), topK: topK, topP: Float(topP), minP: Float(minP),
                               repetitionPenalty: Float(repetitionPenalty), repetitionWindow: repetitionWindow,
                               frequencyPenalty: Float(frequencyPenalty), presencePenalty: Float(presencePenalty)).invalidReason
        }
    }
}
