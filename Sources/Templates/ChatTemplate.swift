/// One chat message as chat templates see it: `role`, `content`, and any other fields a template
/// may read (`reasoning_content`, `tool_calls`, `tool_call_id`, `name`, ...).
public struct ChatMessage: Sendable, Equatable {
    public var role: String
    public var content: String
    /// Further fields, in the order they are added to the message object.
    public var extra: TemplateObject

    public init(role: String, content: String, extra: TemplateObject = TemplateObject()) {
        self.role = role
        self.content = content
        self.extra = extra
    }

    /// The message as the object a template receives: role, content, then the extra fields.
    public var templateValue: TemplateValue {
        var object = TemplateObject([("role", .string(role)), ("content", .string(content))])
        for (k, v) in extra.pairs where k != "role" && k != "content" { object[k] = v }
        return .object(object)
    }
}

/// A model's chat template (the Jinja text in GGUF `tokenizer.chat_template`), parsed once and
/// rendered per request exactly as Hugging Face's `apply_chat_template` renders it: jinja2
/// with `trim_blocks`, `lstrip_blocks`, loop controls, `raise_exception`, `strftime_now`, and
/// `tojson` as `json.dumps(ensure_ascii=False)`.
///
/// ```swift
/// let template = try ChatTemplate(source: file.string("tokenizer.chat_template"))
/// let prompt = try template.render(
///     messages: [ChatMessage(role: "user", content: "Hi!")],
///     addGenerationPrompt: true, bosToken: "<|im_start|>", eosToken: "<|im_end|>")
/// ```
public struct ChatTemplate: Sendable {
    /// The template text as given.
    public let source: String
    /// Bounds on one render's output, loop iterations and recursion.
    public var limits = RenderLimits()
    /// The clock `strftime_now` reads (Llama 3.x prints today's date).
    public var clock = TemplateClock.system
    private let nodes: [Node]

    /// Parses and validates the template. Syntax errors and constructs this interpreter does not
    /// implement (unknown statements, filters, tests, functions, methods) throw here, with the
    /// construct's name and line/column, rather than at the first chat turn.
    public init(source: String) throws(TemplateError) {
        self.source = source
        var lexer = Lexer(source: source)
        var parser = Parser(tokens: try lexer.tokenize())
        nodes = try parser.parseTemplate()
    }

    /// The format used for a model whose GGUF has no `tokenizer.chat_template`: the BOS text,
    /// then each message as `Role: content` followed by a blank line, then `Assistant:` when a
    /// generation prompt is asked for. Roles are capitalised (`System`, `User`, `Assistant`).
    public static let plainSource = """
        {{- bos_token -}}
        {%- for message in messages -%}
        {{- message['role'] | capitalize }}: {{ message['content'] | trim }}{{ '\\n\\n' -}}
        {%- endfor -%}
        {%- if add_generation_prompt -%}Assistant:{%- endif -%}
        """

    /// The plain fallback template (see `plainSource`).
    public static var plain: ChatTemplate {
        // plainSource is a constant that the tests parse, so this cannot fail.
        try! ChatTemplate(source: plainSource)
    }

    /// Renders a conversation with the variables Hugging Face passes: `messages`, `tools` (none
    /// when nil), `add_generation_prompt`, `bos_token`, `eos_token`, and `extra` (for example
    /// `enable_thinking` for Qwen 3, or `date_string` for Llama 3.x).
    public func render(messages: [ChatMessage], addGenerationPrompt: Bool = true, bosToken: String = "",
                       eosToken: String = "", tools: [TemplateValue]? = nil,
                       extra: [String: TemplateValue] = [:]) throws(TemplateError) -> String {
        try render(messages: messages.map(\.templateValue), addGenerationPrompt: addGenerationPrompt, bosToken: bosToken,
                   eosToken: eosToken, tools: tools, extra: extra)
    }

    /// As `render(messages:...)` for messages given as objects (content may then be a list of
    /// parts, as multimodal templates expect).
    public func render(messages: [TemplateValue], addGenerationPrompt: Bool = true, bosToken: String = "",
                       eosToken: String = "", tools: [TemplateValue]? = nil,
                       extra: [String: TemplateValue] = [:]) throws(TemplateError) -> String {
        var context = TemplateObject()
        context["messages"] = .array(messages)
        context["tools"] = tools.map(TemplateValue.array) ?? TemplateValue.none
        context["documents"] = TemplateValue.none
        context["add_generation_prompt"] = .bool(addGenerationPrompt)
        context["bos_token"] = .string(bosToken)
        context["eos_token"] = .string(eosToken)
        for key in extra.keys.sorted() { context[key] = extra[key] }
        return try render(context: context)
    }

    /// Renders with exactly these top-level variables (nothing added).
    public func render(context: TemplateObject) throws(TemplateError) -> String {
        let renderer = Renderer(globals: Dictionary(uniqueKeysWithValues: context.pairs.map { ($0.0, Value($0.1)) }),
                                limits: limits, clock: clock)
        _ = try renderer.execute(nodes, in: renderer.root)
        return renderer.output
    }
}
