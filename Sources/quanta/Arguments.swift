/// A small flag parser shared by the subcommands: `--name value`, `-n value` and bare `--flag`s.
struct Arguments {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    /// Arguments that are not flags, in order.
    private(set) var positional: [String] = []

    /// `valued` lists the options that take a value; anything else starting with `-` is a flag.
    /// More than `maxPositional` bare arguments is an error (an unquoted `-p Hello world` would
    /// otherwise lose "world").
    init(_ args: [String], valued: Set<String>, flags known: Set<String>, maxPositional: Int = 0) throws(UsageError) {
        var rest = args[...]
        while let a = rest.popFirst() {
            if valued.contains(a) {
                guard let v = rest.popFirst() else { throw UsageError("\(a) needs a value") }
                values[a] = v
            } else if known.contains(a) {
                flags.insert(a)
            } else if a.hasPrefix("-") && a.count > 1 && Double(a) == nil {
                throw UsageError("unknown option \(a)")
            } else {
                guard positional.count < maxPositional else {
                    throw UsageError("unexpected argument \"\(a)\" (quote a value that contains spaces)")
                }
                positional.append(a)
            }
        }
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The value of the first present spelling (`["-n", "--n-predict"]`).
    func string(_ names: String...) -> String? { names.lazy.compactMap { values[$0] }.first }

    func int(_ names: String..., default value: Int, range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let text = names.lazy.compactMap({ values[$0] }).first else { return value }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError("\(names[0]) must be an integer in \(range.lowerBound)...\(range.upperBound), got \(text)")
        }
        return v
    }

    func float(_ names: String..., default value: Float, range: ClosedRange<Float>) throws(UsageError) -> Float {
        guard let text = names.lazy.compactMap({ values[$0] }).first else { return value }
        guard let v = Float(text), v.isFinite, range.contains(v) else {
            throw UsageError("\(names[0]) must be a number in \(range.lowerBound)...\(range.upperBound), got \(text)")
        }
        return v
    }
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
