// The one argument grammar of `quanta` and `bench`: each command declares its options
// (llama.cpp's spellings first where llama.cpp has one), and one parser reads them, rejects
// unknown options and stray words (naming the closest spelling), answers `-h` / `--help`,
// accepts llama.cpp options that do not apply with a note, and prints a usage block made from
// the declaration.

/// One option: its spellings (the first is the one usage shows), the value it takes (nil for a
/// flag) and a line of help.
public struct OptionSpec: Hashable, Sendable {
    public let names: [String]
    public let value: String?
    public let help: String
    /// What the value must look like, checked while parsing (nil: the command checks it).
    public let check: ValueCheck?
    /// Every occurrence is kept (`ParsedArguments.strings`), not only the last.
    public let repeats: Bool
    /// Set for a llama.cpp option that does not apply here: it is accepted, its value checked
    /// as llama.cpp would, and this reason reported in a note (`ParsedArguments.notes`).
    public let ignoredBecause: String?

    public init(_ names: [String], value: String? = nil, _ help: String, check: ValueCheck? = nil, repeats: Bool = false) {
        self.names = names
        self.value = value
        self.help = help
        self.check = check
        self.repeats = repeats
        ignoredBecause = nil
    }

    private init(names: [String], value: String?, check: ValueCheck?, reason: String) {
        self.names = names
        self.value = value
        help = reason
        self.check = check
        repeats = false
        ignoredBecause = reason
    }

    /// A llama.cpp option that does not apply: accepted with a note giving `reason`.
    public static func ignored(_ names: [String], value: String? = nil, check: ValueCheck? = nil, _ reason: String) -> OptionSpec {
        OptionSpec(names: names, value: value, check: check, reason: reason)
    }
}

/// The values an option accepts: integers, some words, or both; optionally a comma-separated
/// list of them (llama-bench's lists).
public struct ValueCheck: Hashable, Sendable {
    public let integers: Bool
    public let words: [String]
    public let list: Bool
    /// How many of `words` an error message names (the rest are synonyms).
    public let namedWords: Int

    public init(integers: Bool, words: [String] = [], list: Bool = false, namedWords: Int? = nil) {
        self.integers = integers
        self.words = words
        self.list = list
        self.namedWords = namedWords ?? words.count
    }

    /// Any integer.
    public static let integer = ValueCheck(integers: true)
    /// An integer or one of `words` (llama.cpp's `-ngl N|auto|all`).
    public static func integer(or words: String...) -> ValueCheck { ValueCheck(integers: true, words: words) }
    /// One of `words`.
    public static func oneOf(_ words: String...) -> ValueCheck { ValueCheck(integers: false, words: words) }
    /// llama.cpp's on/off/auto values (`-fa`, `-co`) with the synonyms its parser takes.
    public static let onOffAuto = ValueCheck(integers: false, words: ["on", "off", "auto", "enabled", "disabled", "true", "false", "1", "0", "-1"],
                                             namedWords: 3)
    /// llama.cpp's model loading modes (`-lm`, `--load-mode`).
    public static let loadMode = oneOf("auto", "none", "mmap", "mlock", "mmap+mlock", "dio")
    /// The same check for each item of a comma-separated list.
    public var commaSeparated: ValueCheck { ValueCheck(integers: integers, words: words, list: true, namedWords: namedWords) }

    func accepts(_ text: String) -> Bool {
        let items = list ? text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) : [text]
        return items.allSatisfy { item in (integers && Int(item) != nil) || words.contains(item) }
    }

    /// "an integer, auto or all", "on, off or auto"; synonyms after the named words are left out.
    var description: String {
        var parts = integers ? ["an integer"] : []
        parts += words.prefix(namedWords)
        let one = parts.count > 1 ? parts.dropLast().joined(separator: ", ") + " or " + parts.last! : parts.first ?? "a value"
        return list ? "a comma-separated list of \(one == "an integer" ? "integers" : one)" : one
    }
}

/// A command's grammar.
public struct CommandSpec: Sendable {
    /// The executable: `quanta`, `bench`.
    public let program: String
    /// The subcommand (empty for the program's own options, as `bench` has).
    public let name: String
    /// What the command does, one line.
    public let summary: String
    public let options: [OptionSpec]
    /// Names of the positional arguments it takes, in order (each is required).
    public var positionals: [String]
    /// Extra lines after the option list.
    public var notes: String

    public init(program: String = "quanta", name: String, summary: String, options: [OptionSpec],
                positionals: [String] = [], notes: String = "") {
        self.program = program
        self.name = name
        self.summary = summary
        self.options = options
        self.positionals = positionals
        self.notes = notes
    }

    /// How the command is typed: `quanta generate`, `bench`, `bench kernels`.
    public var invocation: String { name.isEmpty ? program : "\(program) \(name)" }

    /// The usage block: synopsis, options with their help, the llama.cpp options it ignores, notes.
    public var usage: String {
        var text = "usage: \(invocation)" + positionals.map { " \($0)" }.joined() + " [options]\n\n\(summary)\n\noptions:\n"
        func row(_ option: OptionSpec) -> (String, String) {
            (option.names.joined(separator: ", ") + (option.value.map { " \($0)" } ?? ""), option.help)
        }
        let used = options.filter { $0.ignoredBecause == nil }.map(row) + [("-h, --help", "show this help")]
        let ignored = options.filter { $0.ignoredBecause != nil }.map(row)
        let width = min(34, (used + ignored).map(\.0.count).max() ?? 0)
        func table(_ rows: [(String, String)]) -> String {
            rows.map { left, right in
                // A spelling list too long for the column gets its help on the next line.
                let gap = left.count > width ? "\n" + String(repeating: " ", count: width + 4) : String(repeating: " ", count: width + 2 - left.count)
                return "  \(left)\(gap)\(right)\n"
            }.joined()
        }
        text += table(used)
        if !ignored.isEmpty { text += "\nllama.cpp options accepted and ignored (a note on stderr says why):\n" + table(ignored) }
        return notes.isEmpty ? text : text + "\n" + notes + "\n"
    }

    /// Parses `args`; nil when help was asked for (the caller prints `usage` and exits 0).
    /// `--name=value` and `--name value` are both accepted, and, as llama.cpp does, `_` for `-`
    /// in a long option (`--top_k`).
    public func parse(_ args: [String]) throws(UsageError) -> ParsedArguments? {
        var parsed = ParsedArguments()
        var rest = args[...]
        while let raw = rest.popFirst() {
            if raw == "-h" || raw == "--help" { return nil }
            var word = raw, inline: String?
            if raw.hasPrefix("--"), let eq = raw.firstIndex(of: "=") {
                word = String(raw[..<eq])
                inline = String(raw[raw.index(after: eq)...])
            }
            if let option = option(named: word) {
                let key = option.names[0]
                guard let valueName = option.value else {
                    guard inline == nil else { throw UsageError("\(word) takes no value") }
                    parsed.flags.insert(key)
                    if let reason = option.ignoredBecause { parsed.notes.append("\(word) ignored: \(reason)") }
                    continue
                }
                guard let value = inline ?? rest.popFirst() else { throw UsageError("\(word) needs a value (\(valueName))") }
                if let check = option.check, !check.accepts(value) {
                    throw UsageError("\(word) takes \(check.description), got '\(value)'")
                }
                if let earlier = parsed.values[key]?.last, earlier != value, option.names.contains(where: { $0.hasPrefix("-ct") }) {
                    throw UsageError("\(word) \(value) conflicts with \(earlier): Quanta's KV cache has one type for keys and values")
                }
                parsed.values[key] = option.repeats ? (parsed.values[key] ?? []) + [value] : [value]
                if let reason = option.ignoredBecause { parsed.notes.append("\(word) \(value) ignored: \(reason)") }
            } else if word.hasPrefix("-") && word.count > 1 && Double(word) == nil {
                let spellings = options.flatMap(\.names) + ["--help"]
                let hint = closestMatch(to: word, among: spellings).map { "; did you mean '\($0)'?" } ?? ""
                throw UsageError("unknown option '\(word)'\(hint)")
            } else {
                guard parsed.positional.count < positionals.count else {
                    throw UsageError("unexpected argument '\(raw)'; quote a value that contains spaces")
                }
                parsed.positional.append(raw)
            }
        }
        guard parsed.positional.count == positionals.count else {
            throw UsageError("missing \(positionals[parsed.positional.count])")
        }
        return parsed
    }

    /// The option `word` spells; a long option may use `_` for `-`, as llama.cpp allows.
    private func option(named word: String) -> OptionSpec? {
        if let option = options.first(where: { $0.names.contains(word) }) { return option }
        guard word.hasPrefix("--"), word.contains("_") else { return nil }
        let dashed = String(word.map { $0 == "_" ? "-" : $0 })
        return options.first { $0.names.contains(dashed) }
    }
}

/// What `CommandSpec.parse` read, keyed by each option's first spelling.
public struct ParsedArguments: Sendable {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    public internal(set) var positional: [String] = []
    /// One line per ignored llama.cpp option given (`-ngl 99 ignored: …`), for the caller to
    /// print as notes.
    public internal(set) var notes: [String] = []

    public func has(_ option: OptionSpec) -> Bool { flags.contains(option.names[0]) }

    /// The option's value (the last one given).
    public func string(_ option: OptionSpec) -> String? { values[option.names[0]]?.last }

    /// Every value given for a repeatable option, in order.
    public func strings(_ option: OptionSpec) -> [String] { values[option.names[0]] ?? [] }

    public func int(_ option: OptionSpec, default value: Int, range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let text = string(option) else { return value }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError("\(option.names[0]) must be an integer in \(range.lowerBound)...\(range.upperBound), got \(text)")
        }
        return v
    }

    public func double(_ option: OptionSpec, default value: Double, range: ClosedRange<Double>) throws(UsageError) -> Double {
        guard let text = string(option) else { return value }
        guard let v = Double(text), v.isFinite, range.contains(v) else {
            throw UsageError("\(option.names[0]) must be a number in \(range.lowerBound)...\(range.upperBound), got \(text)")
        }
        return v
    }

    /// A comma-separated list of integers in `range` (llama-bench's `-p 128,512`).
    public func ints(_ option: OptionSpec, default value: [Int], range: ClosedRange<Int>) throws(UsageError) -> [Int] {
        guard let text = string(option) else { return value }
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        let list = items.compactMap { Int($0) }
        guard list.count == items.count, list.allSatisfy(range.contains) else {
            throw UsageError("\(option.names[0]) takes integers in \(range.lowerBound)...\(range.upperBound), comma-separated; got \(text)")
        }
        return list
    }
}

/// A command failed before running: bad arguments (`isArgumentError`: the message points to the
/// command's `--help`) or an input that could not be loaded. Either way one line.
public struct UsageError: Error, Sendable {
    public let message: String
    public let isArgumentError: Bool

    public init(_ message: String, isArgumentError: Bool = true) {
        self.message = message
        self.isArgumentError = isArgumentError
    }

    /// The line to print for `spec`: an argument error ends with `(see quanta generate --help)`.
    public func line(for spec: CommandSpec) -> String {
        isArgumentError ? "\(message) (see \(spec.invocation) --help)" : message
    }

    /// A file that could not be loaded: one line, naming the path once.
    public static func load(_ path: String, _ error: any Error) -> UsageError {
        let text = "\(error)"
        return UsageError(text.contains(path) ? text : "\(path): \(text)", isArgumentError: false)
    }
}
