// The engine's slots: one executor (so one KV cache) each, shared by requests one at a time.
// Admission is decided at once on the HTTP thread (beyond the slots and the queue: 503); an
// admitted request then waits its turn without blocking a thread.
import LanguageModelAPI
import LocalModels
import Synchronization

/// `slots` executors and a bounded queue of requests waiting for one.
final class SlotPool: Sendable {
    /// One slot: its executor and how many tokens its cache held after its last request.
    final class Slot: Sendable {
        let index: Int
        let executor: LocalLanguageModel.Executor
        let cachedTokens = Atomic<Int>(0)
        init(index: Int, executor: LocalLanguageModel.Executor) {
            self.index = index
            self.executor = executor
        }
    }

    private struct State {
        /// Free slots, the least recently used first.
        var free: [Slot]
        var waiting: [(id: Int, continuation: CheckedContinuation<Slot?, Never>)] = []
        var admitted = 0
        var nextID = 0
    }
    let slots: [Slot]
    /// Requests that may wait for a slot beyond those running.
    let queueLimit: Int
    private let state: Mutex<State>

    init(model: LocalLanguageModel, slots count: Int, queueLimit: Int) throws {
        slots = try (0..<count).map { Slot(index: $0, executor: try LocalLanguageModel.Executor(configuration: model.executorConfiguration)) }
        self.queueLimit = queueLimit
        state = Mutex(State(free: slots))
    }

    /// Takes a place for one request, or false when every slot is busy and the queue is full.
    func admit() -> Bool {
        state.withLock { s in
            guard s.admitted < slots.count + queueLimit else { return false }
            s.admitted += 1
            return true
        }
    }

    /// Gives back an admitted request's place without running it.
    func withdraw() {
        state.withLock { $0.admitted -= 1 }
    }

    /// Requests admitted but not yet holding a slot.
    var queueDepth: Int { state.withLock { $0.waiting.count } }
    /// Slots running a request.
    var busy: Int { state.withLock { slots.count - $0.free.count } }

    /// Waits for a free slot (first come, first served); nil if the task is cancelled first.
    /// Of the free slots it takes the one `score` rates highest (how much of the request's prompt
    /// its cache holds), the least recently used of those that tie; a request that waits takes
    /// the slot the next one to finish gives back.
    func acquire(score: (Slot) -> Int = { _ in 0 }) async -> Slot? {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Slot?, Never>) in
                let ready = state.withLock { s -> Slot?? in
                    if Task.isCancelled { return .some(nil) }
                    if !s.free.isEmpty {
                        // `free` runs from the least recently used slot to the most recent.
                        var best = 0, bestScore = Int.min
                        for (i, slot) in s.free.enumerated() {
                            let v = score(slot)
                            if v > bestScore { (best, bestScore) = (i, v) }
                        }
                        return .some(s.free.remove(at: best))
                    }
                    s.waiting.append((id, continuation))
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Slot?, Never>? in
                guard let i = s.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiting.remove(at: i).continuation
            }
            waiter?.resume(returning: nil)
        }
    }

    /// Returns `slot` and ends the request's admission; the next waiter gets the slot.
    func release(_ slot: Slot) {
        let next = state.withLock { s -> CheckedContinuation<Slot?, Never>? in
            s.admitted -= 1
            if s.waiting.isEmpty {
                s.free.append(slot)
                return nil
            }
            return s.waiting.removeFirst().continuation
        }
        next?.resume(returning: slot)
    }
}
