// Continuous batching: every sequence of one model (sessions, server slots) runs its forward
// passes on one thread, where each pass takes the next token of every sequence waiting for one
// and the prompt chunks waiting to be prefilled as one batch.
import Architectures
import Foundation
import LanguageModelAPI

/// Runs the forward passes of the sequences of one network and context length on one thread.
/// Each pass takes every sequence that has handed in its next decoded token, and the prompt
/// chunks waiting to be prefilled (up to `promptRows` rows), and runs them as one batch
/// (`forward(_:workspace:)`: the matmuls once over all rows, attention per sequence over its own
/// cache), so each sequence gets the logits and cache rows it would get alone, bit for bit,
/// whatever else runs beside it. Prompts that arrive together are prefilled together, and the
/// decoding sequences step on during a prefill instead of waiting for it.
///
/// A pass waits up to `gatherWindow` for the sequences inside a decode loop that have not handed
/// in their token yet (they are sampling the last step's logits), so batches stay whole.
package final class DecodeBatcher: @unchecked Sendable {
    /// Most decoded rows in one pass; more wait for the next.
    static let maxRows = 16
    /// Most prompt rows in one pass beyond its first prompt chunk, and the most one chunk holds.
    static let promptRows = 256
    /// How long a pass waits for the decoding sequences that have not handed in their token.
    static let gatherWindow: TimeInterval = 0.005
    /// How long the worker thread stays without work before it ends (the next request starts
    /// another), so an idle batcher holds no thread and its model can be freed.
    static let idleExit: TimeInterval = 2

    /// A sequence's rows waiting for a pass, and who waits for their logits.
    private struct Pending {
        let part: SequenceRows
        let done: CheckedContinuation<Result<[Float]?, any Error>, Never>
    }

    private let network: any CausalLanguageModel
    private let workspace: ForwardState
    /// Guards everything below and wakes the worker.
    private let condition = NSCondition()
    private var decodes: [Pending] = []
    private var prompts: [Pending] = []
    /// Sequences inside a decode loop (`beginDecoding` … `endDecoding`).
    private var decoding = 0
    private var started = false
    private var totals = Totals()

    /// What the batcher has run: decode steps (passes with decoded rows), the decoded rows they
    /// held, the most in one; prompt chunks and their tokens.
    package struct Totals: Equatable, Sendable {
        package var steps = 0, rows = 0, largest = 0
        package var prefillBatches = 0, prefillTokens = 0
    }

    /// The decode steps and prefill batches run so far (for tests and metrics).
    package var runSoFar: Totals { condition.withLock { totals } }

    /// - Parameter threads: the threads of every forward pass it runs.
    init(network: any CausalLanguageModel, threads: Int) {
        self.network = network
        workspace = network.makeWorkspace(rows: Self.maxRows + Self.promptRows)
        workspace.context.threads = threads
    }

    /// A sequence enters its decode loop: steps wait for its token (up to `gatherWindow`).
    func beginDecoding() {
        condition.withLock { decoding += 1 }
    }

    /// A sequence leaves its decode loop.
    func endDecoding() {
        condition.withLock {
            decoding -= 1
            condition.broadcast()
        }
    }

    /// Runs `token` at the next position of `state` in the next pass and returns its logits.
    /// - Throws: `LanguageModelError.contextSizeExceeded` when the machine lacks the memory for
    ///   the position's KV rows.
    func decode(_ token: Int32, state: ForwardState) async throws -> [Float] {
        try await run(SequenceRows(state: state, tokens: [token], kind: .decoded, wantsLogits: true))!
    }

    /// Runs prompt `tokens` (at most `promptRows` and `state.maxBatch`) at the next positions of
    /// `state` in the next pass and returns the logits after the last one when asked.
    /// - Throws: `LanguageModelError.contextSizeExceeded` as `decode`.
    func prefill(_ tokens: [Int32], state: ForwardState, wantLogits: Bool) async throws -> [Float]? {
        precondition(!tokens.isEmpty && tokens.count <= min(state.maxBatch, Self.promptRows), "a prompt chunk of \(tokens.count) tokens")
        return try await run(SequenceRows(state: state, tokens: tokens, kind: .prompt, wantsLogits: wantLogits))
    }

    private func run(_ part: SequenceRows) async throws -> [Float]? {
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<[Float]?, any Error>, Never>) in
            condition.withLock {
                if part.kind == .decoded {
                    decodes.append(Pending(part: part, done: done))
                } else {
                    prompts.append(Pending(part: part, done: done))
                }
                if !started {
                    started = true
                    let thread = Thread { [self] in work() }
                    thread.name = "quanta-batcher"
                    thread.start()
                }
                condition.broadcast()
            }
        }
        return try result.get()
    }

    /// The worker: one pass of what waits (decoded rows first, then prompt chunks), forever.
    private func work() {
        condition.lock()
        while true {
            while decodes.isEmpty && prompts.isEmpty {
                if !condition.wait(until: Date(timeIntervalSinceNow: Self.idleExit)) && decodes.isEmpty && prompts.isEmpty {
                    started = false
                    condition.unlock()
                    return
                }
            }
            if !decodes.isEmpty && decodes.count < min(decoding, Self.maxRows) {
                let deadline = Date(timeIntervalSinceNow: Self.gatherWindow)
                while decodes.count < min(decoding, Self.maxRows) && condition.wait(until: deadline) {}
            }
            var batch = Array(decodes.prefix(Self.maxRows))
            decodes.removeFirst(batch.count)
            // Prompt chunks in arrival order: the first whatever its size, more while they fit.
            var promptRows = 0, chunks = 0
            while let next = prompts.first, chunks < Self.maxRows,
                  chunks == 0 || promptRows + next.part.tokens.count <= Self.promptRows {
                batch.append(prompts.removeFirst())
                promptRows += next.part.tokens.count
                chunks += 1
            }
            condition.unlock()
            pass(batch)
            condition.lock()
        }
    }

    /// One forward pass of `batch`: each sequence's KV rows reserved (one that cannot be is
    /// answered with the error and left out), then one batched forward pass.
    private func pass(_ batch: [Pending]) {
        var ready: [Pending] = []
        for p in batch {
            let cache = p.part.state.cache, end = cache.count + p.part.tokens.count
            do {
                try cache.reserve(upTo: end)
                ready.append(p)
            } catch {
                p.done.resume(returning: .failure(LanguageModelError.contextSizeExceeded(.init(
                    contextSize: cache.capacity, tokenCount: end, debugDescription: "\(error)"))))
            }
        }
        guard !ready.isEmpty else { return }
        let logits = network.forward(ready.map(\.part), workspace: workspace)
        condition.withLock {
            let decoded = ready.count { $0.part.kind == .decoded }
            if decoded > 0 {
                totals.steps += 1
                totals.rows += decoded
                totals.largest = max(totals.largest, decoded)
            }
            for p in ready where p.part.kind == .prompt {
                totals.prefillBatches += 1
                totals.prefillTokens += p.part.tokens.count
            }
        }
        var row = 0
        for p in ready {
            if p.part.wantsLogits {
                p.done.resume(returning: .success(logits.copyRow(row)))
                row += 1
            } else {
                p.done.resume(returning: .success(nil))
            }
        }
    }
}
