import GGUF

/// Random tensor bytes that decode to finite weights of a chosen spread: every byte of every
/// block random, then each block's fp16 scale fields overwritten so that a weight's standard
/// deviation is about `sigma` and its mean about zero. Deterministic in `seed`.
enum RandomWeights {
    /// Fills `bytes` (whole blocks of `type`) with random blocks of weight spread `sigma`.
    static func fill(_ bytes: UnsafeMutableRawBufferPointer, type: GGMLType, sigma: Float, seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        // Random 8-byte words, then the tail byte by byte.
        let words = bytes.count / 8
        let base = bytes.baseAddress!
        for i in 0..<words { base.storeBytes(of: rng.next(), toByteOffset: i * 8, as: UInt64.self) }
        for i in words * 8..<bytes.count { base.storeBytes(of: UInt8(truncatingIfNeeded: rng.next()), toByteOffset: i, as: UInt8.self) }
        switch type {
        case .f32:
            // Uniform on ±σ√3 (standard deviation σ).
            for i in 0..<bytes.count / 4 { base.storeBytes(of: sigma * 1.732 * rng.uniform(), toByteOffset: i * 4, as: Float.self) }
        case .f16:
            for i in 0..<bytes.count / 2 {
                base.storeBytes(of: Float16(sigma * 1.732 * rng.uniform()).bitPattern, toByteOffset: i * 2, as: UInt16.self)
            }
        case .bf16:
            // The top half of the fp32 value (truncated: the spread is what matters here).
            for i in 0..<bytes.count / 2 {
                let v = sigma * 1.732 * rng.uniform()
                base.storeBytes(of: UInt16(v.bitPattern >> 16), toByteOffset: i * 2, as: UInt16.self)
            }
        default:
            guard let layout = ScaleLayout(type) else { preconditionFailure("no random blocks for \(type)") }
            let d = Float16(sigma / layout.quantSpread).bitPattern
            let m = Float16(layout.minimumPerScale * sigma / layout.quantSpread).bitPattern
            for block in stride(from: 0, to: bytes.count, by: type.blockBytes) {
                base.storeBytes(of: d, toByteOffset: block + layout.scale, as: UInt16.self)
                if let minimum = layout.minimum { base.storeBytes(of: m, toByteOffset: block + minimum, as: UInt16.self) }
            }
        }
    }

    /// Where a block keeps its fp16 scale (and minimum), and the standard deviation of a weight
    /// per unit of scale when every other byte is uniform random (from the block formats in
    /// docs/kernels.md).
    struct ScaleLayout {
        let scale: Int, minimum: Int?
        let quantSpread: Float
        /// The minimum (or `dmin`) per unit of scale that centres the weights on zero.
        let minimumPerScale: Float

        init?(_ type: GGMLType) {
            switch type {
            // d·(q − 8), q uniform on 0…15: sd √((16² − 1)/12) = 4.61.
            case .q4_0: (scale, minimum, quantSpread, minimumPerScale) = (0, nil, 4.61, 0)
            // d·q + m, q on 0…15: m = −7.5·d centres it.
            case .q4_1: (scale, minimum, quantSpread, minimumPerScale) = (0, 2, 4.61, -7.5)
            // d·(q − 16), q on 0…31: sd 9.23.
            case .q5_0: (scale, minimum, quantSpread, minimumPerScale) = (0, nil, 9.23, 0)
            // d·q + m, q on 0…31: m = −15.5·d centres it.
            case .q5_1: (scale, minimum, quantSpread, minimumPerScale) = (0, 2, 9.23, -15.5)
            // d·v, v one of IQ4_NL's 16 values (rms 67.4).
            case .iq4_nl: (scale, minimum, quantSpread, minimumPerScale) = (0, nil, 67.4, 0)
            // d·(ls − 32)·v with a 6-bit ls (rms of ls − 32: 18.5): 67.4 · 18.5 = 1246.
            case .iq4_xs: (scale, minimum, quantSpread, minimumPerScale) = (0, nil, 1246, 0)
            // d·q, q an int8: sd 73.9.
            case .q8_0: (scale, minimum, quantSpread, minimumPerScale) = (0, nil, 73.9, 0)
            // d·s·q − dmin·m with 6-bit s, m (mean 31.5) and q on 0…15 (mean 7.5): dmin = 7.5·d
            // centres it; sd ≈ 258·d (s·(q − 7.5) and 7.5·(s − m) together).
            case .q4_K: (scale, minimum, quantSpread, minimumPerScale) = (0, 2, 258, 7.5)
            // As Q4_K with q on 0…31 (mean 15.5): dmin = 15.5·d; sd ≈ 527·d
            // (√(1333.5 · 85.25 + 15.5² · 682.5)).
            case .q5_K: (scale, minimum, quantSpread, minimumPerScale) = (0, 2, 527, 15.5)
            // d·s·(q − 32), s an int8 and q on 0…63: sd 73.9 · 18.5 = 1365; d is the last field.
            case .q6_K: (scale, minimum, quantSpread, minimumPerScale) = (208, nil, 1365, 0)
            // d·(s − 32)·(q − 4), a 6-bit s (E[(s − 32)²] = 341.5) and q on 0…7 (E[(q − 4)²] = 5.5):
            // sd √(341.5 · 5.5) = 43.3; d is the last field.
            case .q3_K: (scale, minimum, quantSpread, minimumPerScale) = (108, nil, 43.3, 0)
            default: return nil
            }
        }
    }
}

/// A small fast generator (Steele, Lea and Flood's SplitMix64); random enough for weights.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform on [−1, 1).
    mutating func uniform() -> Float { Float(next() >> 40) / Float(1 << 23) - 1 }
}
