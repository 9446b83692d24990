// Every `respond` / `streamResponse` overload of Apple's FM27 interface, in its order and with its
// signatures: prompts as `Prompt`, `String` or a `@PromptBuilder` closure; free text, a schema
// or a `Generable` type; the FM26 `includeSchemaInPrompt:` forms and the FM27 `contextOptions:` /
// `metadata:` forms. Each one only assembles a `RequestParameters` for `respondCore` /
// `streamCore`.

extension LanguageModelSession {
    public func streamResponse(to prompt: Prompt, options: GenerationOptions = GenerationOptions()) -> ResponseStream<String> {
        streamCore(RequestParameters(prompt: prompt, shape: .text, options: options, contextOptions: ContextOptions(), metadata: [:]))
    }

    @_disfavoredOverload public func streamResponse(to prompt: String, options: GenerationOptions = GenerationOptions()) -> ResponseStream<String> {
        streamCore(RequestParameters(prompt: Prompt(prompt), shape: .text, options: options, contextOptions: ContextOptions(), metadata: [:]))
    }

    public func streamResponse(options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt) rethrows -> ResponseStream<String> {
        streamCore(RequestParameters(prompt: try prompt(), shape: .text, options: options, contextOptions: ContextOptions(), metadata: [:]))
    }

    public func streamResponse(to prompt: Prompt, schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions()) -> ResponseStream<GeneratedContent> {
        streamCore(RequestParameters(prompt: prompt, shape: .schema(schema), options: options, contextOptions: withSchemaFlag(ContextOptions(), includeSchemaInPrompt), metadata: [:]))
    }

    @_disfavoredOverload public func streamResponse(to prompt: String, schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions()) -> ResponseStream<GeneratedContent> {
        streamCore(RequestParameters(prompt: Prompt(prompt), shape: .schema(schema), options: options, contextOptions: withSchemaFlag(ContextOptions(), includeSchemaInPrompt), metadata: [:]))
    }

    public func streamResponse(schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt) rethrows -> ResponseStream<GeneratedContent> {
        streamCore(RequestParameters(prompt: try prompt(), shape: .schema(schema), options: options, contextOptions: withSchemaFlag(ContextOptions(), includeSchemaInPrompt), metadata: [:]))
    }

    public func streamResponse<Content>(to prompt: Prompt, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions()) -> ResponseStream<Content> where Content : Generable {
        streamCore(RequestParameters(prompt: prompt, shape: .generating(type), options: options, contextOptions: withSchemaFlag(ContextOptions(), includeSchemaInPrompt), metadata: [:]))
    }

    @_disfavoredOverload public func streamResponse<Content>(to prompt: String, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions()) -> ResponseStream<Content> where Content : Generable {
        streamCore(RequestParameters(prompt: Prompt(prompt), shape: .generating(type), options: options, contextOptions: withSchemaFlag(ContextOptions(), includeSchemaInPrompt), metadata: [:]))
    }

    public func streamResponse<Content>(generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt) rethrows -> ResponseStream<Content> where Content : Generable {
        streamCore(RequestParameters(prompt: try prompt(), shape: .generating(type), options: options, contextOptions: withSchemaFlag(ContextOptions(), includeSchemaInPrompt), metadata: [:]))
    }

    public func streamResponse(to prompt: Prompt, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(), metadata: MetadataValues = [:]) -> ResponseStream<String> {
        streamCore(RequestParameters(prompt: prompt, shape: .text, options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @_disfavoredOverload public func streamResponse(to prompt: String, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(), metadata: MetadataValues = [:]) -> ResponseStream<String> {
        streamCore(RequestParameters(prompt: Prompt(prompt), shape: .text, options: options, contextOptions: contextOptions, metadata: metadata))
    }

    public func streamResponse(options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(), metadata: MetadataValues = [:], @PromptBuilder prompt: () throws -> Prompt) rethrows -> ResponseStream<String> {
        streamCore(RequestParameters(prompt: try prompt(), shape: .text, options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @_disfavoredOverload public func streamResponse(to prompt: Prompt, schema: GenerationSchema, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: MetadataValues = [:]) -> ResponseStream<GeneratedContent> {
        streamCore(RequestParameters(prompt: prompt, shape: .schema(schema), options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @_disfavoredOverload public func streamResponse(to prompt: String, schema: GenerationSchema, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: MetadataValues = [:]) -> ResponseStream<GeneratedContent> {
        streamCore(RequestParameters(prompt: Prompt(prompt), shape: .schema(schema), options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @_disfavoredOverload public func streamResponse(schema: GenerationSchema, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: MetadataValues = [:], @PromptBuilder prompt: () throws -> Prompt) rethrows -> ResponseStream<GeneratedContent> {
        streamCore(RequestParameters(prompt: try prompt(), shape: .schema(schema), options: options, contextOptions: contextOptions, metadata: metadata))
    }

    public func streamResponse<Content>(to prompt: Prompt, generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: MetadataValues = [:]) -> ResponseStream<Content> where Content : Generable {
        streamCore(RequestParameters(prompt: prompt, shape: .generating(type), options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @_disfavoredOverload public func streamResponse<Content>(to prompt: String, generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: MetadataValues = [:]) -> ResponseStream<Content> where Content : Generable {
        streamCore(RequestParameters(prompt: Prompt(prompt), shape: .generating(type), options: options, contextOptions: contextOptions, metadata: metadata))
    }

    public func streamResponse<Content>(generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: MetadataValues = [:], @PromptBuilder prompt: () throws -> Prompt) rethrows -> ResponseStream<Content> where Content : Generable {
        streamCore(RequestParameters(prompt: try prompt(), shape: .generating(type), options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @discardableResult public func respond(to prompt: Prompt, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
        try await respondCore(RequestParameters(prompt: prompt, shape: .text, options: options, contextOptions: ContextOptions(), metadata: [:]))
    }

    @discardableResult @_disfavoredOverload public func respond(to prompt: String, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
        try await respondCore(RequestParameters(prompt: Prompt(prompt), shape: .text, options: options, contextOptions: ContextOptions(), metadata: [:]))
    }

    @discardableResult public func respond(options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt) async throws -> Response<String> {
        try await respondCore(RequestParameters(prompt: try prompt(), shape: .text, options: options, contextOptions: ContextOptions(), metadata: [:]))
    }

    @discardableResult public func respond(to prompt: Prompt, schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions()) async throws -> Response<GeneratedContent> {
        try await respondCore(RequestParameters(prompt: prompt, shape: .schema(schema), options: options, contextOptions: withSchemaFlag(ContextOptions(), includeSchemaInPrompt), metadata: [:]))
    }

    @discardableResult @_disfavoredOverload public func respond(to prompt: String, schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions()) async throws -> Response<GeneratedContent> {
        try await respondCore(RequestParameters(prompt: Prompt(prompt), shape: .schema(schema), options: options, contextOptions: withSchemaFlag(ContextOptions(), includeSchemaInPrompt), metadata: [:]))
    }

    @discardableResult public func respond(schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt) async throws -> Response<GeneratedContent> {
        try await respondCore(RequestParameters(prompt: try prompt(), shape: .schema(schema), options: options, contextOptions: withSchemaFlag(ContextOptions(), includeSchemaInPrompt), metadata: [:]))
    }

    @discardableResult public func respond<Content>(to prompt: Prompt, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions()) async throws -> Response<Content> where Content : Generable {
        try await respondCore(RequestParameters(prompt: prompt, shape: .generating(type), options: options, contextOptions: withSchemaFlag(ContextOptions(), includeSchemaInPrompt), metadata: [:]))
    }

    @discardableResult @_disfavoredOverload public func respond<Content>(to prompt: String, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions()) async throws -> Response<Content> where Content : Generable {
        try await respondCore(RequestParameters(prompt: Prompt(prompt), shape: .generating(type), options: options, contextOptions: withSchemaFlag(ContextOptions(), includeSchemaInPrompt), metadata: [:]))
    }

    @discardableResult public func respond<Content>(generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt) async throws -> Response<Content> where Content : Generable {
        try await respondCore(RequestParameters(prompt: try prompt(), shape: .generating(type), options: options, contextOptions: withSchemaFlag(ContextOptions(), includeSchemaInPrompt), metadata: [:]))
    }

    @discardableResult public func respond(to prompt: Prompt, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(), metadata: MetadataValues = [:]) async throws -> Response<String> {
        try await respondCore(RequestParameters(prompt: prompt, shape: .text, options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @discardableResult @_disfavoredOverload public func respond(to prompt: String, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(), metadata: MetadataValues = [:]) async throws -> Response<String> {
        try await respondCore(RequestParameters(prompt: Prompt(prompt), shape: .text, options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @discardableResult public func respond(options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(), metadata: MetadataValues = [:], @PromptBuilder prompt: () throws -> Prompt) async throws -> Response<String> {
        try await respondCore(RequestParameters(prompt: try prompt(), shape: .text, options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @discardableResult @_disfavoredOverload public func respond(to prompt: Prompt, schema: GenerationSchema, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: MetadataValues = [:]) async throws -> Response<GeneratedContent> {
        try await respondCore(RequestParameters(prompt: prompt, shape: .schema(schema), options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @discardableResult @_disfavoredOverload public func respond(to prompt: String, schema: GenerationSchema, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: MetadataValues = [:]) async throws -> Response<GeneratedContent> {
        try await respondCore(RequestParameters(prompt: Prompt(prompt), shape: .schema(schema), options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @discardableResult @_disfavoredOverload public func respond(schema: GenerationSchema, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: MetadataValues = [:], @PromptBuilder prompt: () throws -> Prompt) async throws -> Response<GeneratedContent> {
        try await respondCore(RequestParameters(prompt: try prompt(), shape: .schema(schema), options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @discardableResult public func respond<Content>(to prompt: Prompt, generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: MetadataValues = [:]) async throws -> Response<Content> where Content : Generable {
        try await respondCore(RequestParameters(prompt: prompt, shape: .generating(type), options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @discardableResult @_disfavoredOverload public func respond<Content>(to prompt: String, generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: MetadataValues = [:]) async throws -> Response<Content> where Content : Generable {
        try await respondCore(RequestParameters(prompt: Prompt(prompt), shape: .generating(type), options: options, contextOptions: contextOptions, metadata: metadata))
    }

    @discardableResult public func respond<Content>(generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: MetadataValues = [:], @PromptBuilder prompt: () throws -> Prompt) async throws -> Response<Content> where Content : Generable {
        try await respondCore(RequestParameters(prompt: try prompt(), shape: .generating(type), options: options, contextOptions: contextOptions, metadata: metadata))
    }
}
