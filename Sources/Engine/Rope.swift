import CKernels
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything that decides how a family's rotary position embedding turns a position into
/// angles: llama.cpp's `ggml_rope_ext` arguments, read from `<arch>.rope.*` keys and the
/// frequency-factor tensors at load.
///
/// Pair i (of `rotaryDims / 2`) at position p turns by θ = p · base^(−2i/rotaryDims) / factor[i],
/// then, with scaling, by YaRN's blend of that angle and `frequencyScale · θ`; cos and sin are
/// multiplied by `attentionFactor` (and YaRN's own magnitude correction).
public struct RopeParameters: Sendable, Hashable {
    /// `rope.freq_base`.
    public var base: Float
    /// Which dimensions form the rotated pairs.
    public var style: Ops.RopeStyle
    /// Rotated dimensions per head (the first `rotaryDims`; the rest pass through).
    public var rotaryDims: Int
    /// θ is multiplied by this: 1 / `rope.scaling.factor` for linear and YaRN scaling, else 1.
    public var frequencyScale: Float = 1
    /// Per-pair divisors of the frequencies, `[rotaryDims / 2]`: Llama 3's `rope_freqs.weight`, or
    /// LongRoPE's short factors (`rope_factors_short.weight`). Nil: all 1.
    public var frequencyFactors: [Float]? = nil
    /// LongRoPE's long factors (`rope_factors_long.weight`), used instead of `frequencyFactors` when
    /// the context is longer than `originalContext`.
    public var longFactors: [Float]? = nil
    /// YaRN's extrapolation mix (`yarn_ext_factor`): 0 turns the ramp off (every scaling but YaRN).
    public var extrapolation: Float = 0
    /// YaRN's ramp bounds, in rotations over the original context (`yarn_beta_fast` / `_slow`).
    public var betaFast: Float = 32, betaSlow: Float = 1
    /// The context length the model was trained with before scaling (`rope.scaling.original_context_length`).
    public var originalContext: Int = 0
    /// Multiplies cos and sin (llama.cpp's `attn_factor`: LongRoPE's and YaRN's magnitude scaling).
    public var attentionFactor: Float = 1

    public init(base: Float, style: Ops.RopeStyle, rotaryDims: Int) {
        self.base = base
        self.style = style
        self.rotaryDims = rotaryDims
    }

    /// True when the angles are plain `p · base^(−2i/d)` (the C kernel's case).
    var isPlain: Bool {
        frequencyScale == 1 && frequencyFactors == nil && longFactors == nil && extrapolation == 0 && attentionFactor == 1
    }

    /// The parameters for a sequence of up to `context` tokens: LongRoPE switches to its long
    /// factors beyond the original context, as llama.cpp does for `n_ctx_seq > n_ctx_orig_yarn`.
    public func forContext(_ context: Int) -> RopeParameters {
        guard let long = longFactors else { return self }
        var r = self
        if context > originalContext { r.frequencyFactors = long }
        r.longFactors = nil
        return r
    }

    /// YaRN's correction range [low, high] in pair indices (`ggml_rope_yarn_corr_dims`): pairs
    /// below `low` rotate more than `betaFast` times over the original context and keep their
    /// frequency (extrapolate), pairs above `high` are interpolated, the ramp blends between.
    var correctionDims: (low: Float, high: Float) {
        func dim(_ rotations: Float) -> Float {
            Float(rotaryDims) * logf(Float(originalContext) / (rotations * 2 * Float.pi)) / (2 * logf(base))
        }
        return (max(0, floorf(dim(betaFast))), min(Float(rotaryDims - 1), ceilf(dim(betaSlow))))
    }

    /// cos and sin of every pair at position `p`, into `cs` as rotaryDims/2 cosines then as many
    /// sines (ck_rope_angles_rows' row layout). Follows ggml's order of float operations (θ
    /// multiplied up pair by pair).
    func angles(position p: Int, into cs: UnsafeMutablePointer<Float>) {
        let half = rotaryDims / 2
        let thetaScale = powf(base, -2 / Float(rotaryDims))
        let (low, high) = extrapolation != 0 ? correctionDims : (0, 0)
        var theta = Float(p)
        for i in 0..<half {
            let extrap = theta / (frequencyFactors?[i] ?? 1)
            let interp = frequencyScale * extrap
            var angle = interp, magnitude = attentionFactor
            if extrapolation != 0 {
                // Ramp over the pair index: 1 below `low` (keep extrap), 0 above `high` (interp).
                let y = (Float(i) - low) / max(0.001, high - low)
                let mix = (1 - min(1, max(0, y))) * extrapolation
                angle = interp * (1 - mix) + extrap * mix
                magnitude *= 1 + 0.1 * logf(1 / frequencyScale)
            }
            cs[i] = cosf(angle) * magnitude
            cs[half + i] = sinf(angle) * magnitude
            theta *= thetaScale
        }
    }
}

extension Ops {
    /// Rotates each of the `heads` heads (length `headDim`) of row r by position `positions[r]`
    /// with `rope`: the C kernel (on the context's threads, over rows) on angles from `angles`,
    /// computed there once for every layer of the batch (a fresh cache when nil).
    public static func rope(_ x: Matrix, rows: Int, positions: [Int], heads: Int, headDim: Int, rope: RopeParameters,
                            angles: RopeAngleCache? = nil, context: ExecutionContext) {
        precondition(x.columns == heads * headDim && positions.count >= rows && rows <= x.rows, "rope: shape mismatch")
        precondition(rope.rotaryDims <= headDim && rope.rotaryDims % 2 == 0, "rope: bad rotary dims")
        precondition((rope.frequencyFactors?.count ?? rope.rotaryDims / 2) >= rope.rotaryDims / 2, "rope: too few factors")
        (angles ?? RopeAngleCache()).withAngles(positions: positions, rows: rows, rope: rope, threads: context.ckThreads) { a in
            ck_rope_rows_angles(x.base, Int64(rows), a, Int64(heads), Int64(headDim), Int64(rope.rotaryDims),
                                rope.style == .neox ? 1 : 0, context.ckThreads)
        }
    }
}

/// The rotation angles of one batch's positions for each rope a model uses (Gemma 3 has two
/// bases), computed when a layer first asks and reused while the positions stay the same: every
/// layer's queries and keys rotate by the same angles, and a cosine and a sine per pair, row,
/// layer and tensor were ~4 % of a Gemma 3 prefill (cpu-clock profile, pp512). Plain ropes get
/// ck_rope_angles_rows' angles (ck_rope's bits); scaled or factored ones (Llama 3 factors,
/// LongRoPE, YaRN) `RopeParameters.angles`.
public final class RopeAngleCache {
    private struct Entry {
        var positions: [Int] = []   // the rows the angles are for
        var angles: [Float] = []    // [rows][2 * (rotaryDims / 2)]: cosines, then sines
    }
    private var entries: [RopeParameters: Entry] = [:]

    public init() {}

    /// Calls `body` with the angles of the first `rows` of `positions` (ck_rope_angles_rows'
    /// layout), computing them only when they differ from the last call's for this rope.
    func withAngles<R>(positions: [Int], rows: Int, rope: RopeParameters, threads: Int32,
                       _ body: (UnsafePointer<Float>) -> R) -> R {
        let width = rope.rotaryDims / 2 * 2
        // A model has one or two ropes; parameters that never compare equal (a NaN) must not
        // grow the table call after call.
        if entries.count > 8 { entries.removeAll() }
        var e = entries.removeValue(forKey: rope) ?? Entry()   // mutated in place, not copied
        if e.positions.count != rows || !e.positions.elementsEqual(positions.prefix(rows)) {
            e.positions.removeAll(keepingCapacity: true)
            e.positions.append(contentsOf: positions.prefix(rows))
            if e.angles.count < max(1, rows * width) { e.angles = [Float](repeating: 0, count: max(1, rows * width)) }
            e.angles.withUnsafeMutableBufferPointer { a in
                if rope.isPlain {
                    e.positions.withUnsafeBufferPointer { p in
                        p.withMemoryRebound(to: Int64.self) { p64 in
                            ck_rope_angles_rows(a.baseAddress, Int64(rows), p64.baseAddress, Int64(rope.rotaryDims), rope.base,
                                                threads)
                        }
                    }
                } else {
                    for r in 0..<rows { rope.angles(position: e.positions[r], into: a.baseAddress! + r * width) }
                }
            }
        }
        defer { entries[rope] = e }
        return e.angles.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
