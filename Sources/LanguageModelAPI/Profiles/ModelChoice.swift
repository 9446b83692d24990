// Models a session can run on, and the executors it keeps for them. Executors are keyed by the
// model's executor configuration, so one model gets one executor (and one KV cache) per session
// however often a profile switches to it.
import Synchronization

/// A model, as the session needs it: its executor's identity, its capabilities, and how to make
/// an executor for it.
package struct ModelChoice: Sendable {
    /// The executor configuration (equal configurations share an executor).
    let key: ExecutorKey
    let capabilities: LanguageModelCapabilities
    let makeRunner: @Sendable () -> ModelRunner

    package init<Model: LanguageModel>(_ model: Model) {
        key = ExecutorKey(configuration: AnyHashable(model.executorConfiguration))
        capabilities = model.capabilities
        makeRunner = { ModelRunner(model) }
    }
}

/// An executor configuration of any model type. `@unchecked Sendable`: it only ever wraps an
/// `Executor.Configuration`, which the protocol requires to be Sendable.
struct ExecutorKey: Hashable, @unchecked Sendable {
    let configuration: AnyHashable
}

/// One executor of a session, as closures over its model.
struct ModelRunner: Sendable {
    let execute: @Sendable (LanguageModelExecutorGenerationRequest, LanguageModelExecutorGenerationChannel) async throws -> Void
    let warm: @Sendable (Transcript) -> Void

    package init<Model: LanguageModel>(_ model: Model) {
        // A configuration the executor rejects fails each request, not the session's creation.
        let executor = Result { () throws -> Model.Executor in try Model.Executor(configuration: model.executorConfiguration) }
        execute = { request, channel in try await executor.get().respond(to: request, model: model, streamingInto: channel) }
        warm = { transcript in if case let .success(e) = executor { e.prewarm(model: model, transcript: transcript) } }
    }
}

/// The executors of one session, one per model configuration, created on first use.
final class ExecutorPool: Sendable {
    private let runners = Mutex<[ExecutorKey: ModelRunner]>([:])

    /// The executor for `choice`.
    func runner(for choice: ModelChoice) -> ModelRunner {
        runners.withLock { runners in
            if let runner = runners[choice.key] { return runner }
            let runner = choice.makeRunner()
            runners[choice.key] = runner
            return runner
        }
    }
}
