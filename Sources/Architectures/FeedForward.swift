import Engine

/// One layer's gated feed-forward sub-block: RMSNorm → gate and up (separate, or the two halves
/// of a fused `ffn_up`) → act(gate) · up → down → optional post-norm. Leaves its output in `projected`.
struct FeedForwardBlock {
    enum Activation { case silu, geluTanh }

    /// Input RMSNorm weight `[embedding]`.
    let norm: [Float]
    /// [gate, up]: embedding → feedForward each.
    let inputs: [WeightMatrix]
    /// feedForward → embedding.
    let down: WeightMatrix
    let activation: Activation
    /// RMSNorm of the output before the residual add (Gemma 3), `[embedding]`.
    let postNorm: [Float]?

    func run(_ c: StepContext, _ hp: Hyperparameters) {
        let a = c.a
        c.rmsNorm(a.x, norm, eps: hp.rmsEps, into: a.xn)
        c.linear(a.xn, inputs, into: a.gateUp)
        switch activation {
        case .silu: c.swiGLU(gate: a.gate, up: a.up)
        case .geluTanh: c.geGLU(gate: a.gate, up: a.up)
        }
        c.linear(a.gate, down, into: a.projected)
        if let postNorm { c.rmsNorm(a.projected, postNorm, eps: hp.rmsEps, into: a.projected) }
    }
}
