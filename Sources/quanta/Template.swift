#if canImport(Glibc)
import Glibc
#endif
import CommandLineSpec
import GGUF
import Templates

private let templateFileOption = OptionSpec(["--template"], value: "FILE", "a Jinja chat template file (default: the model's, else the plain format)")
private let noGenerationPromptOption = OptionSpec(["--no-generation-prompt"], "leave out the assistant turn's opening")
private let bosOption = OptionSpec(["--bos"], value: "TEXT", "bos_token text (default: the model's)")
private let eosOption = OptionSpec(["--eos"], value: "TEXT", "eos_token text (default: the model's)")

let templateSpec = CommandSpec(name: "template",
                               summary: "Render a JSON conversation from stdin with a chat template; prints the prompt exactly.",
                               options: [CommonOptions.model, templateFileOption, noGenerationPromptOption, bosOption, eosOption])

/// `quanta template`: renders a JSON conversation from stdin with a chat template and prints the
/// prompt exactly (no newline added).
///
/// Input: `{"messages": [...], "tools": [...]?, "enable_thinking": bool?}` or a bare array of
/// messages; any other top-level key is passed to the template as a variable too (for example
/// `date_string`). The template is `--template FILE`, else the `--model` GGUF's
/// `tokenizer.chat_template`, else the plain format (`ChatTemplate.plainSource`). BOS/EOS text is
/// `--bos`/`--eos`, else the model's BOS/EOS token strings, else empty.
func runTemplate(_ argv: [String]) -> Int32 {
    let args: ParsedArguments
    do throws(UsageError) {
        guard let parsed = try parse(templateSpec, argv) else { return 0 }
        args = parsed
    } catch {
        return fail(error, templateSpec)
    }
    let modelPath = args.string(CommonOptions.model), templatePath = args.string(templateFileOption)
    var bos = args.string(bosOption), eos = args.string(eosOption)
    let addGenerationPrompt = !args.has(noGenerationPromptOption)

    var source: String?
    if let modelPath {
        do {
            let file = try GGUFFile(path: modelPath)
            if file.metadata["tokenizer.chat_template"] != nil { source = try file.string("tokenizer.chat_template") }
            let tokens = (try? file.strings("tokenizer.ggml.tokens")) ?? []
            func token(_ key: String) -> String? {
                guard let id = try? file.int(key), tokens.indices.contains(id) else { return nil }
                return tokens[id]
            }
            bos = bos ?? token("tokenizer.ggml.bos_token_id")
            eos = eos ?? token("tokenizer.ggml.eos_token_id")
        } catch {
            return fail(UsageError.load(modelPath, error).message)
        }
    }
    if let templatePath {
        do { source = String(decoding: try readInputFile(templatePath), as: UTF8.self) } catch { return fail(error.message) }
    }

    do {
        let template = try source.map { (s: String) throws(TemplateError) -> ChatTemplate in try ChatTemplate(source: s) } ?? .plain
        let input = try parseJSON(readStandardInput())
        guard let conversation = ConversationJSON(input) else {
            if case .object = input { throw TemplateError.invalidInput("\"messages\" must be an array") }
            throw TemplateError.invalidInput("expected an object with \"messages\" or an array of messages")
        }
        var tools: [TemplateValue]?
        var extra: [String: TemplateValue] = [:]
        for (key, value) in conversation.variables {
            if key == "tools" {
                if case let .array(t) = value { tools = t } else if value != .none { throw TemplateError.invalidInput("\"tools\" must be an array") }
            } else {
                extra[key] = value
            }
        }
        let messages = conversation.messages
        let prompt = try template.render(messages: messages, addGenerationPrompt: addGenerationPrompt,
                                         bosToken: bos ?? "", eosToken: eos ?? "", tools: tools, extra: extra)
        writeStandardOutput(prompt)
        return 0
    } catch {
        // One line: a raised message may itself contain newlines.
        return fail("\(error)".split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\\n"))
    }
}

private func readStandardInput() -> String {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = read(0, &buffer, buffer.count)
        if n <= 0 { break }
        bytes.append(contentsOf: buffer[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Writes every byte with write(2), so nothing is buffered or appended.
private func writeStandardOutput(_ text: String) {
    var text = text
    text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(1, buffer.baseAddress! + offset, buffer.count - offset)
            if n <= 0 { break }
            offset += n
        }
    }
}
