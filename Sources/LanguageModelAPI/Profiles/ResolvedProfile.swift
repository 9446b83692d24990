// What a profile amounts to for one request, and how the request path applies it.

/// A profile resolved for one request. A session without a profile uses `init(tools:)`: its
/// fixed tools and nothing else.
package struct ResolvedProfile {
    typealias Action<Entry> = nonisolated(nonsending) (Entry) async throws -> Void

    /// The model to run on; nil = the session's.
    var model: ModelChoice?
    /// Instructions text pieces, or nil when the session's transcript carries the instructions.
    var instructionPieces: [String]?
    var tools: [any Tool]
    var temperature: Double?
    var samplingMode: GenerationOptions.SamplingMode?
    var maximumResponseTokens: Int?
    var toolCallingMode: GenerationOptions.ToolCallingMode?
    var reasoningLevel: ContextOptions.ReasoningLevel?
    /// Applied in order to the history each request sends.
    var historyTransforms: [([Transcript.Entry]) -> [Transcript.Entry]] = []
    var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy?
    var onPrompt: [Action<Transcript.Prompt>] = []
    var onResponse: [Action<Transcript.Response>] = []
    var onReasoning: [Action<Transcript.Reasoning>] = []
    var onToolCall: [Action<Transcript.ToolCall>] = []
    var onToolOutput: [nonisolated(nonsending) (Transcript.ToolCall, Transcript.ToolOutput) async throws -> Void] = []
    /// Activation handlers by the path of the profile node that declared them.
    var lifecycle: [String: Lifecycle] = [:]

    /// Handlers run when a profile node starts or stops being in force.
    struct Lifecycle {
        var activate: [@isolated(any) () async -> Void] = []
        var deactivate: [@isolated(any) () async -> Void] = []
    }

    /// A fixed configuration: these tools, the transcript's own instructions.
    init(tools: [any Tool]) {
        self.tools = tools
    }

    /// An empty dynamic configuration, filled in by resolving a profile.
    static var dynamic: ResolvedProfile {
        var profile = ResolvedProfile(tools: [])
        profile.instructionPieces = []
        return profile
    }

    /// `options` with the profile's overrides filled in where the request left them nil.
    func apply(to options: GenerationOptions) -> GenerationOptions {
        var options = options
        options.temperature = options.temperature ?? temperature
        options.samplingMode = options.samplingMode ?? samplingMode
        options.maximumResponseTokens = options.maximumResponseTokens ?? maximumResponseTokens
        options.toolCallingMode = options.toolCallingMode ?? toolCallingMode
        return options
    }

    /// `contextOptions` with the profile's reasoning level where the request left it nil.
    func apply(to contextOptions: ContextOptions) -> ContextOptions {
        var contextOptions = contextOptions
        contextOptions.reasoningLevel = contextOptions.reasoningLevel ?? reasoningLevel
        return contextOptions
    }

    /// The transcript a request extends: `stored` with the history transformed and, for a
    /// dynamic profile, the resolved instructions in place of any leading instructions entry.
    func opening(_ stored: Transcript) -> Transcript {
        var history = instructionPieces == nil ? Array(stored) : Array(stored.history)
        var leading: [Transcript.Entry] = []
        if instructionPieces == nil, case .instructions? = history.first { leading = [history.removeFirst()] }
        for transform in historyTransforms { history = transform(history) }
        return Transcript(entries: leading + instructionsEntry + history)
    }

    /// The resolved instructions and tools as a transcript entry (none when both are empty).
    private var instructionsEntry: [Transcript.Entry] {
        guard let instructionPieces, !(instructionPieces.isEmpty && tools.isEmpty) else { return [] }
        let segments: [Transcript.Segment] = instructionPieces.isEmpty ? [] : [.text(instructionPieces.joined(separator: "\n"))]
        return [.instructions(.init(segments: segments, toolDefinitions: tools.map { Transcript.ToolDefinition(tool: $0) }))]
    }
}
