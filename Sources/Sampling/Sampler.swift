#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sampling settings. Filters apply in this order, each to what the previous one kept:
/// 1. repetition penalty on the last `repetitionWindow` accepted tokens (logit > 0 divided by the
///    penalty, ≤ 0 multiplied, as llama.cpp and CTRL do), then OpenAI's frequency and presence
///    penalties over the generated tokens only: logit −= count × frequency + (count > 0) × presence;
/// 2. top-k (keep the k highest logits; 0 = off);
/// 3. top-p (keep the smallest prefix of the sorted distribution whose mass reaches p; 1 = off);
/// 4. min-p (drop tokens whose probability is below min-p × the top probability; 0 = off);
/// 5. temperature, then one draw from the renormalised distribution.
/// A temperature of 0 is greedy: the highest logit after the penalties, lowest id on ties.
public struct SamplingParameters: Sendable, Equatable {
    public var temperature: Float
    public var topK: Int
    public var topP: Float
    public var minP: Float
    public var repetitionPenalty: Float
    public var repetitionWindow: Int
    /// Subtracted from a logit once per time its token was generated (0 = off; OpenAI's −2…2).
    public var frequencyPenalty: Float
    /// Subtracted from the logit of every token generated at least once (0 = off).
    public var presencePenalty: Float
    public var seed: UInt64

    public init(temperature: Float = 0.8, topK: Int = 40, topP: Float = 0.95, minP: Float = 0.05,
                repetitionPenalty: Float = 1.0, repetitionWindow: Int = 64, frequencyPenalty: Float = 0,
                presencePenalty: Float = 0, seed: UInt64 = 0) {
        self.frequencyPenalty = frequencyPenalty
        self.presencePenalty = presencePenalty
        self.temperature = temperature
        self.topK = topK
        self.topP = topP
        self.minP = minP
        self.repetitionPenalty = repetitionPenalty
        self.repetitionWindow = repetitionWindow
        self.seed = seed
    }

    /// Greedy decoding.
    public static let greedy = SamplingParameters(temperature: 0, topK: 1, topP: 1, minP: 0)

    /// Why these parameters are unusable, or nil if they are fine.
    public var invalidReason: String? {
        if !(temperature >= 0) || !temperature.isFinite { return "temperature must be a finite number ≥ 0" }
        if topK < 0 { return "top-k must be ≥ 0" }
        if !(topP > 0 && topP <= 1) { return "top-p must be in (0, 1]" }
        if !(minP >= 0 && minP <= 1) { return "min-p must be in [0, 1]" }
        if !(repetitionPenalty > 0) || !repetitionPenalty.isFinite { return "repetition penalty must be > 0" }
        if repetitionWindow < 0 { return "repetition window must be ≥ 0" }
        if !frequencyPenalty.isFinite || !presencePenalty.isFinite { return "frequency and presence penalties must be finite" }
        return nil
    }
}

/// Turns logits into a token. Holds the RNG and the recent-token window, so one sampler serves
/// one sequence; `reset` starts over with the same seed.
public struct Sampler: Sendable {
    public let parameters: SamplingParameters
    private var rng: SeededGenerator
    private var recent: [Int32] = []
    /// How often each generated token was accepted (for the frequency and presence penalties).
    private var generatedCounts: [Int32: Int] = [:]
    // Reused between calls so sampling does not allocate per token.
    private var candidates: [(id: Int32, logit: Float)] = []

    public init(_ parameters: SamplingParameters) {
        precondition(parameters.invalidReason == nil, parameters.invalidReason ?? "")
        self.parameters = parameters
        rng = SeededGenerator(seed: parameters.seed)
    }

    public mutating func reset() {
        rng = SeededGenerator(seed: parameters.seed)
        recent.removeAll(keepingCapacity: true)
        generatedCounts.removeAll(keepingCapacity: true)
    }

    /// Records a generated token (for the repetition, frequency and presence penalties).
    public mutating func accept(_ token: Int32) {
        if parameters.frequencyPenalty != 0 || parameters.presencePenalty != 0 { generatedCounts[token, default: 0] += 1 }
        acceptPrompt(token)
    }

    /// Records a prompt token: the repetition penalty sees it, the frequency and presence
    /// penalties (generated tokens only, as OpenAI defines them) do not.
    public mutating func acceptPrompt(_ token: Int32) {
        guard parameters.repetitionWindow > 0 else { return }
        recent.append(token)
        if recent.count > parameters.repetitionWindow { recent.removeFirst(recent.count - parameters.repetitionWindow) }
    }

    /// Picks the next token from `logits` (one value per vocabulary entry; modified in place by
    /// the penalties).
    public mutating func sample(_ logits: inout [Float]) -> Int32 {
        let p = parameters
        if p.repetitionPenalty != 1 {
            for token in Set(recent) where Int(token) < logits.count {
                let l = logits[Int(token)]
                logits[Int(token)] = l > 0 ? l / p.repetitionPenalty : l * p.repetitionPenalty
            }
        }
        for (token, count) in generatedCounts where Int(token) < logits.count {
            logits[Int(token)] -= Float(count) * p.frequencyPenalty + p.presencePenalty
        }
        if p.temperature == 0 || p.topK == 1 { return Int32(Self.argmax(logits)) }

        // Candidates sorted by logit, highest first: top-k by partial selection when set.
        candidates.removeAll(keepingCapacity: true)
        for (i, l) in logits.enumerated() where l > -Float.infinity { candidates.append((Int32(i), l)) }
        if candidates.isEmpty { return Int32(Self.argmax(logits)) }
        if p.topK > 0 && p.topK < candidates.count {
            candidates = Array(Self.largest(candidates, p.topK))
        } else {
            candidates.sort { $0.logit > $1.logit || ($0.logit == $1.logit && $0.id < $1.id) }
        }

        // Probabilities at temperature 1 for top-p / min-p (llama.cpp filters before temperature).
        let maxLogit = candidates[0].logit
        var probs = candidates.map { expf($0.logit - maxLogit) }
        var total = probs.reduce(0, +)
        var keep = candidates.count
        if p.topP < 1 {
            var mass: Float = 0
            for i in 0..<keep {
                mass += probs[i] / total
                if mass >= p.topP { keep = i + 1; break }
            }
        }
        if p.minP > 0 {
            let threshold = p.minP * probs[0]
            keep = max(1, probs[0..<keep].prefix { $0 >= threshold }.count)
        }

        // Temperature, then a draw.
        probs = (0..<keep).map { expf((candidates[$0].logit - maxLogit) / p.temperature) }
        total = probs.reduce(0, +)
        var target = rng.nextUnitFloat() * total
        for i in 0..<keep {
            target -= probs[i]
            if target < 0 { return candidates[i].id }
        }
        return candidates[keep - 1].id
    }

    /// Index of the highest value, lowest index on ties.
    public static func argmax(_ xs: [Float]) -> Int {
        var best = 0, bestValue = -Float.infinity
        for i in xs.indices where xs[i] > bestValue { best = i; bestValue = xs[i] }
        return best
    }

    /// The k highest-logit candidates in descending order (ties: lower id first).
    private static func largest(_ xs: [(id: Int32, logit: Float)], _ k: Int) -> ArraySlice<(id: Int32, logit: Float)> {
        // A bounded min-heap of the best k seen so far: O(n log k), no full sort of the vocabulary.
        var heap: [(id: Int32, logit: Float)] = []
        heap.reserveCapacity(k)
        func less(_ a: (id: Int32, logit: Float), _ b: (id: Int32, logit: Float)) -> Bool {
            a.logit < b.logit || (a.logit == b.logit && a.id > b.id)
        }
        func siftDown(_ i: Int) {
            var i = i
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count && less(heap[l], heap[m]) { m = l }
                if r < heap.count && less(heap[r], heap[m]) { m = r }
                if m == i { return }
                heap.swapAt(i, m)
                i = m
            }
        }
        for x in xs {
            if heap.count < k {
                heap.append(x)
                var i = heap.count - 1
                while i > 0 && less(heap[i], heap[(i - 1) / 2]) { heap.swapAt(i, (i - 1) / 2); i = (i - 1) / 2 }
            } else if less(heap[0], x) {
                heap[0] = x
                siftDown(0)
            }
        }
        heap.sort { less($1, $0) }
        return heap[...]
    }
}
