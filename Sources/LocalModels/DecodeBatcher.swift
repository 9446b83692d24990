// Continuous batching: every sequence of one model (sessions, server slots) runs its forward
// passes on one thread, where each decode step takes the next token of every sequence waiting for
// one as one batch, and prompts are prefilled a batch at a time between the steps.
import Architectures
import Foundation
import LanguageModelAPI

/// Runs the forward passes of the sequences of one network and context length on one thread.
/// A decode step takes every sequence that has handed in its next token and runs them as one
/// batch (`forward(batch:states:workspace:)`: the matmuls at m = sequences rows, attention per
/// row over the sequence's own cache), so each sequence gets the logits it would get alone, bit
/// for bit, whatever else runs beside it. Prefill batches (`perform`) run between decode steps,
/// so a long prompt holds the others for at most one batch at a time.
///
/// A step waits up to `gatherWindow` for the sequences inside a decode loop that have not handed
/// in their token yet (they are sampling the last step's logits), so batches stay whole.
package final class DecodeBatcher: @unchecked Sendable {
    /// Most sequences in one decode step; more wait for the next.
    static let maxRows = 16
    /// How long a step waits for the decoding sequences that have not handed in their token.
    static let gatherWindow: TimeInterval = 0.005
    /// How long the worker thread stays without work before it ends (the next request starts
    /// another), so an idle batcher holds no thread and its model can be freed.
    static let idleExit: TimeInterval = 2

    private struct Decode {
        let state: ForwardState
        let token: Int32
        let done: CheckedContinuation<Result<[Float], any Error>, Never>
    }

    private let network: any CausalLanguageModel
    private let workspace: ForwardState
    /// Guards everything below and wakes the worker.
    private let condition = NSCondition()
    private var decodes: [Decode] = []
    private var jobs: [() -> Void] = []
    /// Sequences inside a decode loop (`beginDecoding` … `endDecoding`).
    private var decoding = 0
    private var started = false
    private var totals = Totals()

    /// What the batcher has run: decode steps, the rows they held, the largest step; prefill
    /// batches handed to it and their tokens.
    package struct Totals: Equatable, Sendable {
        package var steps = 0, rows = 0, largest = 0
        package var prefillBatches = 0, prefillTokens = 0
    }

    /// The decode steps and prefill batches run so far (for tests and metrics).
    package var runSoFar: Totals { condition.withLock { totals } }

    /// - Parameter threads: the threads of every forward pass it runs (decode steps and prefill batches).
    init(network: any CausalLanguageModel, threads: Int) {
        self.network = network
        workspace = network.makeWorkspace(sequences: Self.maxRows)
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

    /// Runs `token` at the next position of `state` in the next decode step and returns its logits.
    /// - Throws: `LanguageModelError.contextSizeExceeded` when the machine lacks the memory for
    ///   the position's KV rows.
    func decode(_ token: Int32, state: ForwardState) async throws -> [Float] {
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<[Float], any Error>, Never>) in
            submit { decodes.append(Decode(state: state, token: token, done: done)) }
        }
        return try result.get()
    }

    /// Runs `body` on the batcher's thread between decode steps (a prefill batch of `tokens`
    /// tokens, counted in `runSoFar`).
    func perform<T: Sendable>(tokens: Int, _ body: @escaping () throws -> T) async throws -> T {
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<T, any Error>, Never>) in
            submit {
                totals.prefillBatches += 1
                totals.prefillTokens += tokens
                jobs.append { done.resume(returning: Result { try body() }) }
            }
        }
        return try result.get()
    }

    private func submit(_ enqueue: () -> Void) {
        condition.withLock {
            enqueue()
            if !started {
                started = true
                let thread = Thread { [self] in work() }
                thread.name = "quanta-batcher"
                thread.start()
            }
            condition.broadcast()
        }
    }

    /// The worker: one decode step (if any sequence waits), then one job (if any), forever.
    private func work() {
        condition.lock()
        while true {
            while decodes.isEmpty && jobs.isEmpty {
                if !condition.wait(until: Date(timeIntervalSinceNow: Self.idleExit)) && decodes.isEmpty && jobs.isEmpty {
                    started = false
                    condition.unlock()
                    return
                }
            }
            if !decodes.isEmpty && decodes.count < min(decoding, Self.maxRows) {
                let deadline = Date(timeIntervalSinceNow: Self.gatherWindow)
                while decodes.count < min(decoding, Self.maxRows) && condition.wait(until: deadline) {}
            }
            let batch = Array(decodes.prefix(Self.maxRows))
            decodes.removeFirst(batch.count)
            let job = jobs.isEmpty ? nil : jobs.removeFirst()
            condition.unlock()
            if !batch.isEmpty { step(batch) }
            job?()
            condition.lock()
        }
    }

    /// One decode step of `batch`: each sequence's KV rows reserved (one that cannot be is
    /// answered with the error and left out), then one batched forward pass.
    private func step(_ batch: [Decode]) {
        var ready: [Decode] = []
        for d in batch {
            let cache = d.state.cache
            do {
                try cache.reserve(upTo: cache.count + 1)
                ready.append(d)
            } catch {
                d.done.resume(returning: .failure(LanguageModelError.contextSizeExceeded(.init(
                    contextSize: cache.capacity, tokenCount: cache.count + 1, debugDescription: "\(error)"))))
            }
        }
        guard !ready.isEmpty else { return }
        let logits = network.forward(batch: ready.map(\.token), states: ready.map(\.state), workspace: workspace)
        condition.withLock {
            totals.steps += 1
            totals.rows += ready.count
            totals.largest = max(totals.largest, ready.count)
        }
        for (r, d) in ready.enumerated() { d.done.resume(returning: .success(logits.copyRow(r))) }
    }
}
