// Log-probabilities of generated tokens, for callers that report them (OpenAI's `logprobs`).
// A Quanta addition beside FM27's executor API.
import Foundation
import Tokenizers

extension LocalLanguageModel {
    /// One generated token's log-probability under the model: the log-softmax of the step's raw
    /// logits (temperature 1, before any penalty, filter or grammar mask), in double; and the
    /// `top` most likely tokens of that step.
    public struct TokenLogprob: Sendable, Equatable {
        /// A token and its log-probability.
        public struct Alternative: Sendable, Equatable {
            public var token: Int32
            /// The raw bytes the token stands for (empty for control tokens).
            public var bytes: [UInt8]
            /// Natural log of its probability (≤ 0).
            public var logprob: Double
        }
        /// The generated token.
        public var chosen: Alternative
        /// The most likely tokens at this step, most likely first (ties: lower id first).
        public var top: [Alternative]

        /// `token`'s entry from `logits` (one value per vocabulary entry) with the `top` most likely.
        init(token: Int32, logits: [Float], top: Int, tokenizer: any Tokenizer) {
            let maximum = Double(logits.max() ?? 0)
            var sum = 0.0
            for l in logits { sum += exp(Double(l) - maximum) }
            let logSum = log(sum) + maximum
            func alternative(_ id: Int32) -> Alternative {
                Alternative(token: id, bytes: tokenizer.pieceBytes(id, renderSpecial: false), logprob: Double(logits[Int(id)]) - logSum)
            }
            chosen = alternative(token)
            // The best `top` ids by one pass with a small sorted list (top ≤ 20).
            var best: [Int32] = []
            if top > 0 {
                for (i, l) in logits.enumerated() where best.count < top || l > logits[Int(best[best.count - 1])] {
                    let at = best.firstIndex { l > logits[Int($0)] } ?? best.count
                    best.insert(Int32(i), at: at)
                    if best.count > top { best.removeLast() }
                }
            }
            self.top = best.map(alternative)
        }
    }

    /// Asks an executor for every generated token's log-probability: `receive` is called once
    /// per generated token, in order, before the token's channel event is sent.
    public struct LogprobsRequest: Sendable {
        /// How many most likely tokens to list per step (0…20).
        public var top: Int
        public var receive: @Sendable (TokenLogprob) -> Void

        public init(top: Int, receive: @escaping @Sendable (TokenLogprob) -> Void) {
            self.top = top
            self.receive = receive
        }
    }
}
