import Foundation
import Testing
import Architectures
import Engine
import GGUF

/// llama.cpp's outputs on one tiny family fixture (Fixtures/families/README.md).
struct FamilyReference: Decodable {
    let n_vocab: Int
    let n_ctx: Int
    let prompts: [[Int32]]
    /// Last-position logits of each prompt decoded as one batch.
    let logits: [[Float]]
    let greedy_prompt: Int
    let greedy: [Int32]
    /// llama.cpp's top-1 − top-2 logit at each greedy step.
    let greedy_margin: [Float]
}

/// How our forward agrees with llama.cpp on one fixture.
struct FamilyAgreement: CustomStringConvertible {
    /// Largest |Δ| over the last-position logits of every prompt, and the largest |logit| there.
    var maxDiff: Float = 0, maxLogit: Float = 0
    /// Teacher-forced greedy: fed llama.cpp's tokens one at a time, the steps whose argmax equals
    /// llama.cpp's among those compared (steps whose llama.cpp margin is a near-tie are skipped).
    var forcedEqual = 0, forcedCompared = 0
    /// Free-running greedy: our own tokens, equal to llama.cpp's up to the first near-tie.
    var freeEqual = 0, freeEnd = 0

    var description: String {
        "max |Δlogit| \(maxDiff) (max |logit| \(maxLogit)), teacher-forced \(forcedEqual)/\(forcedCompared), "
            + "free run \(freeEqual)/\(freeEnd) to the first near-tie"
    }
}

/// Each family's tiny random-weight GGUF (with that family's real tensor names, layout and
/// metadata) against llama.cpp's own logits and greedy continuation on it (Fixtures/families):
/// our forward, in f32 and in one quantized type, must give the same logits within a bound
/// relative to their size, and the same greedy tokens wherever llama.cpp's choice is not a
/// near-tie (a margin within twice the logit difference could flip either way).
@Suite struct FamilyReferenceTests {
    static let directory = ReferenceData.fixtures.appendingPathComponent("families")

    /// family, fixture suffix. Bounds on max |Δlogit| / max |logit|: f32 differs from llama.cpp
    /// by summation order and fp16 rounding of K/V (and of Q in its flash attention); the
    /// quantized fixtures also by int8 activations rounding differently once their inputs differ.
    /// A wrong rope, bias, norm or multiplier moves logits by O(1).
    static let cases: [(String, String)] = [
        ("llama3", "f32"), ("llama3", "q4_0"), ("qwen2", "f32"), ("qwen2", "q4_0"), ("qwen3", "f32"), ("qwen3", "q4_0"),
        ("phi3", "f32"), ("phi3", "q8_0"), ("granite", "f32"), ("granite", "q8_0"), ("mistral3", "f32"), ("mistral3", "q8_0"),
        ("phi3short", "f32"), ("phi3short", "q8_0"),
    ]
    static let relativeBound: [String: Float] = ["f32": 2e-3, "q4_0": 3e-2, "q8_0": 3e-2]

    static func agreement(family: String, suffix: String, weights: WeightMode = .native) throws -> FamilyAgreement {
        let base = directory.appendingPathComponent("\(family)-\(suffix)")
        let reference = try JSONDecoder().decode(FamilyReference.self,
                                                 from: Data(contentsOf: base.appendingPathExtension("json")))
        let model = try loadModel(try GGUFFile(path: base.appendingPathExtension("gguf").path), weights: weights)
        #expect(model.hyperparameters.vocabulary == reference.n_vocab)
        var a = FamilyAgreement()
        for (prompt, expected) in zip(reference.prompts, reference.logits) {
            let state = model.makeState(contextSize: reference.n_ctx, maxBatch: 64)
            let n = prompt.count
            let last = try #require(model.forward(prompt, state: state, logitRows: n - 1..<n)).copyRow(0)
            a.maxDiff = max(a.maxDiff, zip(last, expected).map { abs($0 - $1) }.max()!)
            a.maxLogit = max(a.maxLogit, expected.map(abs).max()!)
        }
        let nearTie = 2 * max(a.maxDiff, 1e-4)
        let prompt = reference.prompts[reference.greedy_prompt]
        // Teacher-forced, token by token as llama.cpp decoded.
        let forced = model.makeState(contextSize: reference.n_ctx, maxBatch: 64)
        var input = prompt
        for (step, token) in reference.greedy.enumerated() {
            let logits = try #require(model.forward(input, state: forced, logitRows: input.count - 1..<input.count)).copyRow(0)
            if reference.greedy_margin[step] >= nearTie {
                a.forcedCompared += 1
                if Int32(argmax(logits)) == token { a.forcedEqual += 1 }
            }
            input = [token]
        }
        // Free-running until the first near-tie.
        let free = model.makeState(contextSize: reference.n_ctx, maxBatch: 64)
        input = prompt
        for (step, token) in reference.greedy.enumerated() {
            let logits = try #require(model.forward(input, state: free, logitRows: input.count - 1..<input.count)).copyRow(0)
            if reference.greedy_margin[step] < nearTie { break }
            a.freeEnd += 1
            let ours = Int32(argmax(logits))
            if ours != token { break }
            a.freeEqual += 1
            input = [ours]
        }
        return a
    }

    @Test(arguments: cases) func matchesLlamaCpp(family: String, suffix: String) throws {
        let a = try Self.agreement(family: family, suffix: suffix)
        print("\(family) \(suffix): \(a)")
        #expect(a.maxDiff <= Self.relativeBound[suffix]! * a.maxLogit, "\(family) \(suffix): \(a)")
        #expect(a.forcedCompared >= 16 && a.forcedEqual == a.forcedCompared, "\(family) \(suffix): \(a)")
        #expect(a.freeEqual == a.freeEnd, "\(family) \(suffix): \(a)")
    }

    /// Fused tensors converted at load (each row range of `attn_qkv` / `ffn_up` converted on its
    /// own): fp16 weights stay within fp16 rounding of llama.cpp's f32 logits.
    @Test func fusedWeightsConvertedAtLoad() throws {
        let a = try Self.agreement(family: "phi3", suffix: "f32", weights: .converted(.f16))
        print("phi3 f32 converted to f16: \(a)")
        #expect(a.maxDiff <= 1e-2 * a.maxLogit, "\(a)")
        #expect(a.forcedEqual == a.forcedCompared && a.forcedCompared >= 16, "\(a)")
    }
}
