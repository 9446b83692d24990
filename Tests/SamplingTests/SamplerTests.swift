import Foundation
import Testing
import Sampling

@Suite struct SamplerTests {
    let logits: [Float] = [1.0, 3.0, 2.5, -1.0, 3.0, 0.0]

    @Test func greedyTakesTheLowestIdAmongEqualMaxima() {
        var s = Sampler(.greedy)
        var l = logits
        #expect(s.sample(&l) == 1)
    }

    @Test func sameSeedSameTokensDifferentSeedDifferentStream() {
        func draw(_ seed: UInt64) -> [Int32] {
            var s = Sampler(SamplingParameters(temperature: 1.5, topK: 0, topP: 1, minP: 0, seed: seed))
            return (0..<200).map { _ in var l = logits; return s.sample(&l) }
        }
        #expect(draw(7) == draw(7))
        #expect(draw(7) != draw(8))
    }

    @Test func topKRestrictsTheSupport() {
        var s = Sampler(SamplingParameters(temperature: 5, topK: 3, topP: 1, minP: 0, seed: 1))
        let seen = Set((0..<2000).map { _ in var l = logits; return s.sample(&l) })
        #expect(seen == [1, 4, 2])
    }

    @Test func topPKeepsTheSmallestPrefixReachingTheMass() {
        // softmax of [10, 9, 0, ...]: the first two hold > 99.9% of the mass.
        var s = Sampler(SamplingParameters(temperature: 1, topK: 0, topP: 0.9, minP: 0, seed: 3))
        let seen = Set((0..<2000).map { _ in var l: [Float] = [10, 9, 0, 0, 0]; return s.sample(&l) })
        #expect(seen == [0, 1])
    }

    @Test func minPDropsUnlikelyTokens() {
        // p(1)/p(0) = e^-1 ≈ 0.37 survives min-p 0.3; p(2)/p(0) = e^-3 ≈ 0.05 does not.
        var s = Sampler(SamplingParameters(temperature: 1, topK: 0, topP: 1, minP: 0.3, seed: 4))
        let seen = Set((0..<2000).map { _ in var l: [Float] = [3, 2, 0]; return s.sample(&l) })
        #expect(seen == [0, 1])
    }

    @Test func repetitionPenaltyDividesPositiveAndMultipliesNegativeLogits() {
        var s = Sampler(SamplingParameters(temperature: 0, topK: 0, topP: 1, minP: 0, repetitionPenalty: 2, seed: 0))
        s.accept(1); s.accept(3)
        var l = logits
        #expect(s.sample(&l) == 4)      // token 1 (3.0) penalised to 1.5; token 4 (3.0) wins
        #expect(l[1] == 1.5 && l[3] == -2)
    }

    /// With no filters the empirical frequencies follow softmax(logits / T).
    @Test func drawsFollowTheTemperedSoftmax() {
        let t: Float = 0.7, n = 40_000
        var s = Sampler(SamplingParameters(temperature: t, topK: 0, topP: 1, minP: 0, seed: 11))
        var counts = [Int](repeating: 0, count: logits.count)
        for _ in 0..<n { var l = logits; counts[Int(s.sample(&l))] += 1 }
        let weights = logits.map { exp(Double($0 / t)) }, total = weights.reduce(0, +)
        for i in logits.indices {
            let expected = weights[i] / total, observed = Double(counts[i]) / Double(n)
            #expect(abs(observed - expected) < 4 * (expected * (1 - expected) / Double(n)).squareRoot() + 1e-3,
                    "token \(i): observed \(observed), expected \(expected)")
        }
    }

    @Test func invalidParametersAreNamed() {
        #expect(SamplingParameters(temperature: -1).invalidReason != nil)
        #expect(SamplingParameters(topP: 0).invalidReason != nil)
        #expect(SamplingParameters(minP: 2).invalidReason != nil)
        #expect(SamplingParameters(repetitionPenalty: 0).invalidReason != nil)
        #expect(SamplingParameters(topK: -3).invalidReason != nil)
        #expect(SamplingParameters().invalidReason == nil)
    }
}
