// The conversation object applications use (Apple's `LanguageModelSession`): it keeps the
// transcript and cumulative usage, checks each request against the model's capabilities, sends
// it to the model's executor, runs the tool loop, and turns the executor's events into
// responses and stream snapshots.
import Foundation
import Observation
import Synchronization

/// A conversation with one model. Each `respond` renders the whole transcript plus the new
/// prompt; the executor reuses the KV cache for whatever part it has already seen.
///
/// One request runs at a time (a second one throws `Error.concurrentRequests`). A request that
/// fails or is cancelled leaves the transcript as it was (or, with
/// `transcriptErrorHandlingPolicy = .preserveTranscript`, keeps what was produced) and
/// `isResponding` false. Observable: `transcript`, `isResponding` and `usage` notify observers.
///
/// A session made from a `DynamicProfile` (or `DynamicInstructions`) resolves it at the start
/// of every request: see `init(profile:history:)`.
public final class LanguageModelSession: Sendable {
    /// A rewrite of the transcript applied to each request before rendering (for example,
    /// dropping old turns to fit the context). It changes what is sent, not `transcript`; note
    /// that trimming the start of the history defeats KV prefix reuse. Quanta's addition.
    public typealias HistoryTransform = @Sendable (Transcript) -> Transcript

    struct State {
        var transcript: Transcript
        var usage = Usage.zero
        var isResponding = false
        var policy: TranscriptErrorHandlingPolicy?
        /// Bumped by every transcript edit, so a request can tell it was edited under it.
        var edits = 0
        /// Bumped by every request start, so an abandoned request does not clear a newer one.
        var requests = 0
    }

    let state: Mutex<State>
    let registrar = ObservationRegistrar()
    let tools: [any Tool]
    let historyTransform: HistoryTransform?
    /// The model given at creation; nil for a profile session that names its model in the profile.
    let model: ModelChoice?
    /// One executor per model the session runs on (each holds that model's KV cache).
    let executors = ExecutorPool()
    /// The dynamic profile, re-resolved at every request; nil for a fixed configuration.
    let profile: ProfileResolver?
    /// Serialises executor runs: a request abandoned by its consumer may still be winding down
    /// when the next one starts; the next one waits for it instead of failing.
    let runs = RunQueue()

    /// Values attached to the session, read and written by `@SessionProperty`.
    public let properties = SessionPropertyValues()

    /// The one designated initialiser: every configuration funnels here.
    package init(model: ModelChoice?, tools: [any Tool], transcript: Transcript, historyTransform: HistoryTransform?,
         profile: ProfileResolver?) {
        self.model = model
        self.tools = tools
        self.historyTransform = historyTransform
        self.profile = profile
        state = Mutex(State(transcript: transcript))
        properties.attach(to: self)
        // A profile's tools are bound at every resolution; fixed tools once, here.
        for tool in tools { bindSessionProperties(of: tool, to: properties) }
    }

    /// A session that continues `transcript`.
    public convenience init(model: some LanguageModel, tools: [any Tool] = [], transcript: Transcript) {
        self.init(model: ModelChoice(model), tools: tools, transcript: transcript, historyTransform: nil, profile: nil)
    }

    /// A session with instructions (a system message) and tools.
    public convenience init(model: some LanguageModel, tools: [any Tool] = [], instructions: Instructions? = nil) {
        self.init(model: model, tools: tools, transcript: Self.opening(instructions?.text, tools))
    }

    /// A session with instructions given as text.
    @_disfavoredOverload
    public convenience init(model: some LanguageModel, tools: [any Tool] = [], instructions: String? = nil) {
        self.init(model: model, tools: tools, transcript: Self.opening(instructions, tools))
    }

    /// A session with instructions written with `@InstructionsBuilder`.
    public convenience init<Failure: Swift.Error>(model: some LanguageModel, tools: [any Tool] = [],
                                                  @InstructionsBuilder instructions: () throws(Failure) -> Instructions) throws(Failure) {
        self.init(model: model, tools: tools, transcript: Self.opening(try instructions().text, tools))
    }

    /// A session whose requests pass through `historyTransform`. Quanta's addition.
    public convenience init(model: some LanguageModel, tools: [any Tool] = [], instructions: String?,
                            historyTransform: @escaping HistoryTransform) {
        self.init(model: ModelChoice(model), tools: tools, transcript: Self.opening(instructions, tools),
                  historyTransform: historyTransform, profile: nil)
    }

    /// The opening instructions entry: the system text and the tools' definitions.
    package static func opening(_ instructions: String?, _ tools: [any Tool]) -> Transcript {
        guard instructions != nil || !tools.isEmpty else { return Transcript() }
        let segments: [Transcript.Segment] = instructions.map { [.text($0)] } ?? []
        return Transcript(entries: [.instructions(.init(segments: segments, toolDefinitions: tools.map { Transcript.ToolDefinition(tool: $0) }))])
    }

    /// Instructions, prompts, reasoning, tool calls and responses so far. Setting it while a
    /// request runs makes that request fail with `Error.transcriptMutationWhileResponding`.
    public var transcript: Transcript {
        get {
            registrar.access(self, keyPath: \.transcript)
            return state.withLock { $0.transcript }
        }
        set {
            registrar.withMutation(of: self, keyPath: \.transcript) {
                state.withLock { s in
                    s.transcript = newValue
                    s.edits += 1
                }
            }
        }
    }

    /// Tokens spent by every completed request, summed.
    public var usage: Usage {
        registrar.access(self, keyPath: \.usage)
        return state.withLock { $0.usage }
    }

    /// Whether a request is running.
    public var isResponding: Bool {
        registrar.access(self, keyPath: \.isResponding)
        return state.withLock { $0.isResponding }
    }

    /// What a failed request leaves in the transcript; nil = `.revertTranscript`.
    public var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy? {
        get { state.withLock { $0.policy } }
        set { state.withLock { $0.policy = newValue } }
    }

    /// Edits the transcript between requests. Quanta's addition.
    /// - Throws: `Error.transcriptMutationWhileResponding` while a request runs.
    public func updateTranscript(_ edit: (inout Transcript) -> Void) throws {
        try registrar.withMutation(of: self, keyPath: \.transcript) {
            try state.withLock { s throws(Error) in
                guard !s.isResponding else { throw .transcriptMutationWhileResponding }
                edit(&s.transcript)
                s.edits += 1
            }
        }
    }

    /// Starts computing the instructions (and `promptPrefix`, the expected start of the next
    /// prompt) into the KV cache now, so the next request reports them as cached. Returns at once.
    public func prewarm(promptPrefix: Prompt? = nil) {
        let resolved = resolveProfile()
        guard let model = resolved.model ?? model else { return }
        var transcript = resolved.opening(self.transcript)
        if let promptPrefix { transcript.append(.prompt(.init(segments: [.text(promptPrefix.text)]))) }
        executors.runner(for: model).warm(transcript)
    }

    /// Sets `isResponding` (observers are told).
    func setResponding(_ value: Bool, ifRequest request: Int? = nil) {
        registrar.withMutation(of: self, keyPath: \.isResponding) {
            state.withLock { s in
                if request == nil || request == s.requests { s.isResponding = value }
            }
        }
    }
}

extension LanguageModelSession: Observable {}

/// What a failed request leaves in the transcript.
public struct TranscriptErrorHandlingPolicy: Sendable, Equatable {
    let keepsPartialEntries: Bool
    /// The transcript is left as it was before the request (the default).
    public static let revertTranscript = TranscriptErrorHandlingPolicy(keepsPartialEntries: false)
    /// The prompt and whatever the model produced before the error stay in the transcript.
    public static let preserveTranscript = TranscriptErrorHandlingPolicy(keepsPartialEntries: true)
}

/// Runs async jobs one after another, in the order they were enqueued.
final class RunQueue: Sendable {
    private let last = Mutex<Task<Void, Never>?>(nil)

    /// Runs `job` after every job enqueued before it has finished; cancelling the caller cancels
    /// the job.
    func run(_ job: @escaping @Sendable () async throws -> Void) async throws {
        let task = last.withLock { previous -> Task<Void, any Swift.Error> in
            let before = previous
            let task = Task {
                await before?.value
                try Task.checkCancellation()
                try await job()
            }
            previous = Task { _ = await task.result }
            return task
        }
        try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }
}
