// libFuzzer target: the template lexer, parser and renderer. The input is a template, optionally
// followed by a NUL byte and a JSON conversation (which also fuzzes the JSON reader); every
// failure must be a TemplateError.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTemplates(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let split = bytes.firstIndex(of: 0) ?? size
    let source = String(decoding: bytes[..<split], as: UTF8.self)
    let json = split < size ? String(decoding: bytes[(split + 1)...], as: UTF8.self) : nil
    guard var template = try? ChatTemplate(source: source) else { return 0 }
    // Small bounds keep each run fast; the bounds themselves are what is being exercised.
    template.limits = RenderLimits(maxOutputBytes: 1 << 16, maxLoopIterations: 10_000, maxCallDepth: 64)
    var messages: [TemplateValue] = [
        .object(TemplateObject([("role", .string("system")), ("content", .string("Be brief."))])),
        .object(TemplateObject([("role", .string("user")), ("content", .string("Hi"))])),
        .object(TemplateObject([("role", .string("assistant")), ("content", .string("Hello!"))])),
    ]
    if let json, case let .array(items)? = try? parseJSON(json) { messages = items }
    _ = try? template.render(messages: messages, bosToken: "<s>", eosToken: "</s>")
    return 0
}
