// The one argument grammar of every `quanta` subcommand: each command declares its options
// (llama.cpp's spellings first where llama.cpp has one), and one parser reads them, rejects
// unknown options and stray words, answers `-h` / `--help`, and prints a usage block made
// from the declaration.

/// One option: its spellings (the first is the one usage shows), the value it takes (nil for a
/// flag) and a line of help.
struct OptionSpec: Hashable, Sendable {
    let names: [String]
    let value: String?
    let help: String

    init(_ names: [String], value: String? = nil, _ help: String) {
        self.names = names
        self.value = value
        self.help = help
    }
}

/// A subcommand's grammar.
struct CommandSpec: Sendable {
    let name: String
    /// What the command does, one line.
    let summary: String
    let options: [OptionSpec]
    /// Names of the positional arguments it takes, in order (each is required).
    var positionals: [String] = []
    /// Extra lines after the option list.
    var notes = ""

    /// The usage block: synopsis, options with their help, notes.
    var usage: String {
        var text = "usage: quanta \(name)" + positionals.map { " \($0)" }.joined() + " [options]\n\n\(summary)\n\noptions:\n"
        let rows = options.map { option in
            (option.names.joined(separator: ", ") + (option.value.map { " \($0)" } ?? ""), option.help)
        } + [("-h, --help", "show this help")]
        let width = min(34, rows.map(\.0.count).max() ?? 0)
        for (left, right) in rows {
            // A spelling list too long for the column gets its help on the next line.
            let gap = left.count > width ? "\n" + String(repeating: " ", count: width + 4) : String(repeating: " ", count: width + 2 - left.count)
            text += "  \(left)\(gap)\(right)\n"
        }
        return notes.isEmpty ? text : text + "\n" + notes + "\n"
    }

    /// Parses `args`; nil when help was asked for (the caller prints `usage` and exits 0).
    /// `--name=value` and `--name value` are both accepted.
    func parse(_ args: [String]) throws(UsageError) -> ParsedArguments? {
        var parsed = ParsedArguments()
        var rest = args[...]
        while let raw = rest.popFirst() {
            if raw == "-h" || raw == "--help" { return nil }
            var word = raw, inline: String?
            if raw.hasPrefix("--"), let eq = raw.firstIndex(of: "=") {
                word = String(raw[..<eq])
                inline = String(raw[raw.index(after: eq)...])
            }
            if let option = options.first(where: { $0.names.contains(word) }) {
                let key = option.names[0]
                if option.value == nil {
                    guard inline == nil else { throw UsageError("\(word) takes no value") }
                    parsed.flags.insert(key)
                } else {
                    guard let value = inline ?? rest.popFirst() else { throw UsageError("\(word) needs a value (\(option.value!))") }
                    if let earlier = parsed.values[key], earlier != value, option.names.contains(where: { $0.hasPrefix("-ct") }) {
                        throw UsageError("\(word) \(value) conflicts with \(earlier): Quanta's KV cache has one type for keys and values")
                    }
                    parsed.values[key] = value
                }
            } else if word.hasPrefix("-") && word.count > 1 && Double(word) == nil {
                throw UsageError("unknown option \(word) (see quanta \(name) --help)")
            } else {
                guard parsed.positional.count < positionals.count else {
                    throw UsageError("unexpected argument \"\(raw)\" (quote a value that contains spaces)")
                }
                parsed.positional.append(raw)
            }
        }
        guard parsed.positional.count == positionals.count else {
            throw UsageError("missing \(positionals[parsed.positional.count])")
        }
        return parsed
    }
}

/// What `CommandSpec.parse` read, keyed by each option's first spelling.
struct ParsedArguments {
    fileprivate(set) var values: [String: String] = [:]
    fileprivate(set) var flags: Set<String> = []
    fileprivate(set) var positional: [String] = []

    func has(_ option: OptionSpec) -> Bool { flags.contains(option.names[0]) }

    func string(_ option: OptionSpec) -> String? { values[option.names[0]] }

    func int(_ option: OptionSpec, default value: Int, range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let text = string(option) else { return value }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError("\(option.names[0]) must be an integer in \(range.lowerBound)...\(range.upperBound), got \(text)")
        }
        return v
    }

    func double(_ option: OptionSpec, default value: Double, range: ClosedRange<Double>) throws(UsageError) -> Double {
        guard let text = string(option) else { return value }
        guard let v = Double(text), v.isFinite, range.contains(v) else {
            throw UsageError("\(option.names[0]) must be a number in \(range.lowerBound)...\(range.upperBound), got \(text)")
        }
        return v
    }
}

/// The options several commands share, spelled as llama.cpp spells them (Quanta's older
/// spellings after).
enum CommonOptions {
    static let model = OptionSpec(["-m", "--model"], value: "PATH", "GGUF model file")
    static let contextSize = OptionSpec(["-c", "--ctx-size", "--ctx"], value: "N", "context window in tokens (default 4096, at most the trained length)")
    static let threads = OptionSpec(["-t", "--threads"], value: "N", "threads (default: every online core)")
    static let weights = OptionSpec(["--weights"], value: "FORMAT", "native|f32|mxint8|mxfp8_e4m3|mxfp8_e5m2|mxfp4 (default native)")
    static let kvCache = OptionSpec(["-ctk", "--cache-type-k", "-ctv", "--cache-type-v", "--kv"], value: "TYPE",
                                    "KV cache type: f16|q8_0|mxfp8_e4m3 (default f16; keys and values share it)")
    static let prompt = OptionSpec(["-p", "--prompt"], value: "TEXT", "the prompt")
    static let promptFile = OptionSpec(["-f", "--file"], value: "PATH", "read the prompt from a file")
    static let system = OptionSpec(["-sys", "--system-prompt", "--system"], value: "TEXT", "system instructions")
    static let predict = OptionSpec(["-n", "--n-predict"], value: "N", "tokens to generate (-1: until the context is full)")
    static let temperature = OptionSpec(["--temp"], value: "T", "temperature (0 = greedy)")
    static let topK = OptionSpec(["--top-k"], value: "K", "top-k (0 = off; default 40)")
    static let topP = OptionSpec(["--top-p"], value: "P", "top-p (1 = off; default 0.95)")
    static let minP = OptionSpec(["--min-p"], value: "P", "min-p (0 = off; default 0.05)")
    static let repeatPenalty = OptionSpec(["--repeat-penalty"], value: "X", "repetition penalty (1 = off; default 1)")
    static let repeatLastN = OptionSpec(["--repeat-last-n"], value: "N", "tokens the repetition penalty looks back over (default 64)")
    static let seed = OptionSpec(["-s", "--seed"], value: "N", "sampling seed (-1: random; default -1)")

    /// Options of every command that runs a model.
    static let modelRunning = [model, contextSize, threads, weights, kvCache]
    /// Sampling options (`generate` and `chat` take the same ones).
    static let sampling = [temperature, topK, topP, minP, repeatPenalty, repeatLastN, seed]
}

/// A command failed before running: bad arguments (`showsUsage`: the usage block follows the
/// message) or an input that could not be loaded (one line only).
struct UsageError: Error {
    let message: String
    let showsUsage: Bool
    init(_ message: String, showsUsage: Bool = true) {
        self.message = message
        self.showsUsage = showsUsage
    }

    /// A file that could not be loaded: one line, naming the path once.
    static func load(_ path: String, _ error: any Error) -> UsageError {
        let text = "\(error)"
        return UsageError(text.contains(path) ? text : "\(path): \(text)", showsUsage: false)
    }
}
