import Foundation
import Testing
import Architectures
import Engine
import GGUF

/// How one weight mode compares with llama.cpp on one prompt.
struct Agreement {
    var maxDiff: Float = 0, rms: Float = 0
    var teacherForcedEqual = 0, teacherForcedSteps = 0
    /// Largest llama.cpp margin among the steps where our argmax differs.
    var worstDisagreementMargin: Float = 0
    var freeRunEqual = 0
    var freeRunEnd = ""
    /// The free-run step whose token differs from llama.cpp's (nil: none before the near-tie).
    var freeRunDivergence: Int?
}

/// Compares the model with llama.cpp's record: last-prompt logits, teacher-forced argmax over the
/// 64 reference tokens (no discontinuity: every step sees llama.cpp's own history), and a
/// free-running greedy decode up to its first near-tie.
func compare(_ model: any CausalLanguageModel, with record: GreedyRecord, logits reference: [Float], nearTie: Float) throws -> Agreement {
    var a = Agreement()
    let n = record.prompt_ids.count, steps = record.gen_ids.count
    let forced = model.makeState(contextSize: n + steps, maxBatch: 512)
    let tokens = record.prompt_ids + record.gen_ids.dropLast()
    let all = try #require(model.forward(tokens, state: forced, logitRows: n - 1..<n - 1 + steps))
    for step in 0..<steps {
        a.teacherForcedSteps += 1
        if Int32(argmax(all.copyRow(step))) == record.gen_ids[step] {
            a.teacherForcedEqual += 1
        } else {
            a.worstDisagreementMargin = max(a.worstDisagreementMargin, record.top1_top2_margin[step])
        }
    }
    // Logits of the prompt alone as one batch, as llama.cpp's reference run decoded it.
    let state = model.makeState(contextSize: n + steps, maxBatch: 512)
    let last = try #require(model.forward(record.prompt_ids, state: state, logitRows: n - 1..<n)).copyRow(0)
    let diffs = zip(last, reference).map { abs($0 - $1) }
    a.maxDiff = diffs.max()!
    a.rms = (diffs.reduce(0) { $0 + $1 * $1 } / Float(diffs.count)).squareRoot()
    var next = Int32(argmax(last))
    a.freeRunEnd = "all \(steps)"
    for step in 0..<steps {
        if record.top1_top2_margin[step] < nearTie { a.freeRunEnd = "near-tie at step \(step)"; break }
        if next != record.gen_ids[step] {
            a.freeRunEnd = "differs at step \(step) (margin \(record.top1_top2_margin[step]))"
            a.freeRunDivergence = step
            break
        }
        a.freeRunEqual += 1
        next = Int32(argmax(try #require(model.forward([next], state: state, logitRows: 0..<1)).copyRow(0)))
    }
    return a
}

@Suite(.serialized) struct RealModelForwardTests {
    /// Our native path uses llama.cpp's activation quantization for each GGUF format (Q8_0, Q8_1,
    /// Q8_K) and its fp16 GELU table, so per op it computes llama.cpp's int8 products; what is
    /// left is fp32 summation order. That still leaves a logit RMS of 0.1–0.45 against the
    /// reference, because int8 rounding amplifies any tiny difference: one element that lands on
    /// the other side of a rounding boundary moves the next matmul's inputs, and within a few
    /// layers the two runs differ by a full activation-rounding noise. llama.cpp itself shows it:
    /// the same commit built for this AVX2 machine differs from the AVX-512 reference run by RMS
    /// 0.08–0.17 (SmolLM2) and 0.19–0.46 (Gemma), and its greedy decode leaves the reference on
    /// Gemma prompts 2 and 5 at margins 0.116 and 0.244. The fp32 path does not quantize
    /// activations at all.
    ///
    /// So: the logits stay within the measured bounds below; every teacher-forced step whose
    /// llama.cpp margin is at least `decisiveMargin` picks llama.cpp's token; and the native
    /// free-running greedy decode equals llama.cpp's up to its first step with a margin below
    /// `freeRunNearTie` (set above the 0.244 at which llama.cpp's own AVX2 build diverges).
    static let decisiveMargin: Float = 1.0
    static let freeRunNearTie: Float = 0.25
    /// Per (model, weights): bounds on last-prompt logits max |Δ| and RMS. They are set from the
    /// noise floor, not from one run: any change of fp32 summation order (a new attention kernel,
    /// a fused op) moves these numbers at random within it. Measured over the six prompts: native
    /// SmolLM2 0.86 / 0.32, Gemma 1.43 / 0.57 (two builds of ours, before and after the blocked
    /// prefill attention); f32 0.63 / 0.175 and 1.65 / 0.85; llama.cpp's own AVX2 build against
    /// its AVX-512 reference run: RMS up to 0.17 (SmolLM2) and 0.46 (Gemma). A real defect (a
    /// wrong scale, rope or mask) gives an RMS of several units.
    static let logitBounds: [String: (max: Float, rms: Float)] = [
        "smollm native": (1.1, 0.45), "gemma native": (1.8, 0.75),
        "smollm f32": (0.9, 0.3), "gemma f32": (2.0, 1.0),
    ]

    @Test(arguments: [("smollm", "native"), ("gemma", "native"), ("smollm", "f32"), ("gemma", "f32")])
    func agreesWithLlamaCpp(_ key: String, _ weights: String) throws {
        let model = try loadModel(try GGUFFile(path: ReferenceData.modelPath(key)), weights: WeightMode(argument: weights)!)
        let bound = try #require(Self.logitBounds["\(key) \(weights)"])
        var lines: [String] = []
        for record in try ReferenceData.greedy(key) {
            let reference = try ReferenceData.logits(key, prompt: record.prompt_index)
            let a = try compare(model, with: record, logits: reference, nearTie: 0.1)
            let tag = "\(key) \(weights) prompt \(record.prompt_index)"
            #expect(a.maxDiff <= bound.max && a.rms <= bound.rms, "\(tag): max |Δ| \(a.maxDiff), RMS \(a.rms)")
            #expect(a.worstDisagreementMargin < Self.decisiveMargin, "\(tag): disagrees where llama.cpp's margin is \(a.worstDisagreementMargin)")
            if weights == "native", let step = a.freeRunDivergence {
                #expect(record.top1_top2_margin[0...step].contains { $0 < Self.freeRunNearTie },
                        "\(tag): free-run greedy differs at step \(step) before any margin below \(Self.freeRunNearTie)")
            }
            lines.append("\(tag): logits max|Δ| \(a.maxDiff) RMS \(a.rms); teacher-forced \(a.teacherForcedEqual)/\(a.teacherForcedSteps) "
                + "(worst disagreement margin \(a.worstDisagreementMargin)); free-run \(a.freeRunEqual) equal, \(a.freeRunEnd)")
        }
        print(lines.joined(separator: "\n"))
    }
}
