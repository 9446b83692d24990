// Python methods templates call on values (`content.strip()`, `message.get('x')`) and the global
// functions Hugging Face provides (`raise_exception`, `strftime_now`) plus jinja2's own
// (`namespace`, `range`, `dict`). String methods work on Unicode scalars, as Python's do.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let stringMethodNames: Set<String> = [
    "startswith", "endswith", "split", "rsplit", "strip", "lstrip", "rstrip", "upper", "lower", "title", "capitalize",
    "replace", "find", "count", "splitlines", "isdigit", "isalpha", "isalnum", "isspace", "islower", "isupper", "join",
]
let dictMethodNames: Set<String> = ["items", "keys", "values", "get"]
/// Every method name a template may call; anything else is rejected at load. `cycle` is loop.cycle().
let supportedMethodNames: Set<String> = stringMethodNames.union(dictMethodNames).union(["cycle"])
let globalFunctionNames: Set<String> = ["raise_exception", "strftime_now", "namespace", "range", "dict"]

extension Renderer {
    func callMethod(_ receiver: Value, _ name: String, _ args: EvaluatedArguments, location: SourceLocation) throws(TemplateError) -> Value {
        let a0 = args.positional.first, a1 = args.positional.count > 1 ? args.positional[1] : nil
        switch receiver {
        case let .dict(d):
            switch name {
            case "items": return .list(d.pairs.map { .list([.string($0.0), $0.1]) })
            case "keys": return .list(d.keys.map(Value.string))
            case "values": return .list(d.values)
            case "get":
                guard let key = a0 else { throw .runtime("get expected at least 1 argument", location) }
                if case let .string(k) = key, let v = d[k] { return v }
                return a1 ?? .none
            default: break
            }
        case let .int(index) where name == "cycle":
            guard !args.positional.isEmpty else { throw .runtime("no items for cycling given", location) }
            return args.positional[index % args.positional.count]
        case let .string(s):
            return try stringMethod(s, name, args, location: location)
        default:
            break
        }
        throw .runtime("'\(receiver.typeName)' object has no attribute '\(name)'", location)
    }

    private func stringMethod(_ s: String, _ name: String, _ args: EvaluatedArguments, location: SourceLocation) throws(TemplateError) -> Value {
        let a0 = args.positional.first
        func optionalString(_ v: Value?) -> String? {
            guard let v, !v.isNone, !v.isUndefined else { return nil }
            return v.str
        }
        switch name {
        case "startswith", "endswith":
            guard let a0 else { throw .runtime("\(name) takes at least 1 argument", location) }
            let candidates: [Value]
            if case let .list(l) = a0 { candidates = l } else { candidates = [a0] }
            let scalars = Array(s.unicodeScalars)
            for c in candidates {
                guard case let .string(affix) = c else { throw .runtime("\(name) arg must be str or a tuple of str", location) }
                let a = Array(affix.unicodeScalars)
                if a.count <= scalars.count && (name == "startswith" ? scalars.prefix(a.count).elementsEqual(a) : scalars.suffix(a.count).elementsEqual(a)) {
                    return .bool(true)
                }
            }
            return .bool(false)
        case "split", "rsplit":
            let separator = optionalString(args.value("sep", 0))
            if separator == "" { throw .runtime("empty separator", location) }
            let maxSplit = args.value("maxsplit", 1)?.integer ?? -1
            if name == "rsplit" && maxSplit >= 0 {
                // rsplit with a limit splits from the right: reverse, split, reverse back.
                let reversed = { (t: String) in String(String.UnicodeScalarView(t.unicodeScalars.reversed())) }
                let parts = pySplit(reversed(s), separator: separator.map(reversed), maxSplit: maxSplit)
                return .list(parts.reversed().map { .string(reversed($0)) })
            }
            return .list(pySplit(s, separator: separator, maxSplit: maxSplit).map(Value.string))
        case "strip": return .string(pyStrip(s, chars: optionalString(a0), left: true, right: true))
        case "lstrip": return .string(pyStrip(s, chars: optionalString(a0), left: true, right: false))
        case "rstrip": return .string(pyStrip(s, chars: optionalString(a0), left: false, right: true))
        case "upper": return .string(s.uppercased())
        case "lower": return .string(s.lowercased())
        case "title": return .string(pyTitle(s))
        case "capitalize": return .string(pyCapitalize(s))
        case "replace":
            guard args.positional.count >= 2 else { throw .runtime("replace expected at least 2 arguments", location) }
            return .string(pyReplace(s, args.positional[0].str, args.positional[1].str, count: args.value("count", 2)?.integer))
        case "find":
            guard let a0 else { throw .runtime("find expected at least 1 argument", location) }
            return .int(findScalars(Array(s.unicodeScalars), Array(a0.str.unicodeScalars), from: 0) ?? -1)
        case "count":
            guard let a0 else { throw .runtime("count expected at least 1 argument", location) }
            let hay = Array(s.unicodeScalars), needle = Array(a0.str.unicodeScalars)
            if needle.isEmpty { return .int(hay.count + 1) }
            var n = 0, i = 0
            while let j = findScalars(hay, needle, from: i) { n += 1; i = j + needle.count }
            return .int(n)
        case "splitlines":
            var lines: [Value] = []
            var line = String.UnicodeScalarView()
            var previousCR = false
            for c in s.unicodeScalars {
                if previousCR && c == "\n" { previousCR = false; continue }
                previousCR = c == "\r"
                if [0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029].contains(c.value) {
                    lines.append(.string(String(line)))
                    line = String.UnicodeScalarView()
                } else {
                    line.append(c)
                }
            }
            if !line.isEmpty { lines.append(.string(String(line))) }
            return .list(lines)
        case "isdigit": return .bool(!s.isEmpty && s.unicodeScalars.allSatisfy { $0.properties.numericType != nil })
        case "isalpha": return .bool(!s.isEmpty && s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic })
        case "isalnum": return .bool(!s.isEmpty && s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || $0.properties.numericType != nil })
        case "isspace": return .bool(!s.isEmpty && s.unicodeScalars.allSatisfy(pyIsSpace))
        case "islower": return .bool(s.unicodeScalars.contains { $0.properties.isCased } && s == s.lowercased())
        case "isupper": return .bool(s.unicodeScalars.contains { $0.properties.isCased } && s == s.uppercased())
        case "join":
            guard let a0 else { throw .runtime("join takes exactly one argument", location) }
            var parts: [String] = []
            for item in try iterate(a0, location: location) {
                guard case let .string(p) = item else { throw .runtime("sequence item: expected str instance, \(item.typeName) found", location) }
                parts.append(p)
            }
            return .string(parts.joined(separator: s))
        default:
            throw .runtime("'str' object has no attribute '\(name)'", location)
        }
    }

    func callGlobal(_ name: String, _ args: EvaluatedArguments, location: SourceLocation) throws(TemplateError) -> Value {
        switch name {
        case "raise_exception":
            throw .raised(args.value("message", 0)?.str ?? "")
        case "strftime_now":
            guard let format = args.value("format", 0) else { throw .runtime("strftime_now needs a format", location) }
            return .string(clock.format(format.str))
        case "namespace", "dict":
            var attributes = Dict()
            if let first = args.positional.first {
                guard case let .dict(d) = first else { throw .runtime("\(name)() positional argument must be a mapping", location) }
                attributes = d
            }
            for (k, v) in args.keyword { attributes[k] = v }
            return try checkedNesting(name == "dict" ? .dict(attributes) : .namespace(Namespace(attributes)))
        case "range":
            let numbers = args.positional.compactMap(\.integer)
            guard numbers.count == args.positional.count, (1...3).contains(numbers.count) else {
                throw .runtime("range expects 1 to 3 integer arguments", location)
            }
            let start = numbers.count == 1 ? 0 : numbers[0]
            let stop = numbers.count == 1 ? numbers[0] : numbers[1]
            let step = numbers.count == 3 ? numbers[2] : 1
            guard step != 0 else { throw .runtime("range() arg 3 must not be zero", location) }
            // In 128 bits: the span of two Ints, and each item before it is known to fit, can overflow 64.
            let (a, b, s) = (Int128(start), Int128(stop), Int128(step))
            let count = step > 0 ? max(0, (b - a + s - 1) / s) : max(0, (a - b - s - 1) / -s)
            guard count <= Int128(limits.maxLoopIterations) else { throw .limitExceeded("range of \(count) items") }
            return .list((0..<Int(count)).map { .int(Int(a + Int128($0) * s)) })
        default:
            throw .unsupported(construct: "function '\(name)'", at: location)
        }
    }
}

// MARK: - Python string operations on Unicode scalars

func pyStrip(_ s: String, chars: String?, left: Bool, right: Bool) -> String {
    let set = chars.map { Set($0.unicodeScalars) }
    let strip = { (c: Unicode.Scalar) in set?.contains(c) ?? pyIsSpace(c) }
    var scalars = Array(s.unicodeScalars)[...]
    if left { while let f = scalars.first, strip(f) { scalars.removeFirst() } }
    if right { while let l = scalars.last, strip(l) { scalars.removeLast() } }
    return String(String.UnicodeScalarView(scalars))
}

/// str.split(sep, maxsplit): with no separator, runs of whitespace split and ends are dropped.
func pySplit(_ s: String, separator: String?, maxSplit: Int) -> [String] {
    let scalars = Array(s.unicodeScalars)
    let make = { (r: Range<Int>) in String(String.UnicodeScalarView(scalars[r])) }
    var parts: [String] = []
    if let separator {
        let sep = Array(separator.unicodeScalars)
        var start = 0
        while maxSplit < 0 || parts.count < maxSplit, let j = findScalars(scalars, sep, from: start) {
            parts.append(make(start..<j))
            start = j + sep.count
        }
        parts.append(make(start..<scalars.count))
        return parts
    }
    var i = 0
    while i < scalars.count {
        while i < scalars.count, pyIsSpace(scalars[i]) { i += 1 }
        guard i < scalars.count else { break }
        if maxSplit >= 0 && parts.count == maxSplit {
            var end = scalars.count
            while end > i, pyIsSpace(scalars[end - 1]) { end -= 1 }
            parts.append(make(i..<end))
            break
        }
        let start = i
        while i < scalars.count, !pyIsSpace(scalars[i]) { i += 1 }
        parts.append(make(start..<i))
    }
    return parts
}

func pyReplace(_ s: String, _ old: String, _ new: String, count: Int?) -> String {
    let hay = Array(s.unicodeScalars), needle = Array(old.unicodeScalars)
    var out = String.UnicodeScalarView()
    var replaced = 0
    let limit = count.map { $0 < 0 ? Int.max : $0 } ?? Int.max
    if needle.isEmpty {
        // Python inserts the replacement between every character and at both ends.
        for c in hay {
            if replaced < limit { out.append(contentsOf: new.unicodeScalars); replaced += 1 }
            out.append(c)
        }
        if replaced < limit { out.append(contentsOf: new.unicodeScalars) }
        return String(out)
    }
    var i = 0
    while i < hay.count {
        if replaced < limit, let j = findScalars(hay, needle, from: i), j == i {
            out.append(contentsOf: new.unicodeScalars)
            i += needle.count
            replaced += 1
        } else {
            out.append(hay[i])
            i += 1
        }
    }
    return String(out)
}

private func titlecased(_ c: Unicode.Scalar) -> String { c.properties.titlecaseMapping }
private func lowercased(_ c: Unicode.Scalar) -> String { c.properties.lowercaseMapping }

/// str.capitalize(): first character title-cased, the rest lower-cased.
func pyCapitalize(_ s: String) -> String {
    var out = ""
    for (i, c) in s.unicodeScalars.enumerated() { out += i == 0 ? titlecased(c) : lowercased(c) }
    return out
}

/// str.title(): title-case the first cased character of each run of cased characters.
func pyTitle(_ s: String) -> String {
    var out = ""
    var previousCased = false
    for c in s.unicodeScalars {
        out += previousCased ? lowercased(c) : titlecased(c)
        previousCased = c.properties.isCased
    }
    return out
}

/// jinja2's `title` filter: words start after runs of whitespace, '-', '(', '{', '[' or '<';
/// each word gets its first character upper-cased and the rest lower-cased.
func jinjaTitle(_ s: String) -> String {
    var out = ""
    var atWordStart = true
    for c in s.unicodeScalars {
        let delimiter = pyIsSpace(c) || "-({[<".unicodeScalars.contains(c)
        if delimiter {
            out.unicodeScalars.append(c)
            atWordStart = true
        } else {
            out += atWordStart ? c.properties.uppercaseMapping : lowercased(c)
            atWordStart = false
        }
    }
    return out
}

// MARK: - The clock behind strftime_now

/// Where `strftime_now` reads the time. Hugging Face uses the local wall clock; tests and
/// reproducible renders can freeze it.
public struct TemplateClock: Sendable {
    /// Seconds since the Unix epoch, or nil for "now".
    let fixedEpochSeconds: Int?
    /// Format in UTC rather than the local time zone.
    let utc: Bool

    /// The machine's local wall clock, as Python's datetime.now().
    public static let system = TemplateClock(fixedEpochSeconds: nil, utc: false)

    /// A frozen instant, formatted in UTC.
    public static func fixed(epochSeconds: Int) -> TemplateClock { TemplateClock(fixedEpochSeconds: epochSeconds, utc: true) }

    /// C strftime, which Python's datetime.strftime calls for the directives templates use.
    func format(_ format: String) -> String {
        var seconds = time_t(fixedEpochSeconds ?? Int(time(nil)))
        var parts = tm()
        if utc { gmtime_r(&seconds, &parts) } else { localtime_r(&seconds, &parts) }
        var buffer = [CChar](repeating: 0, count: 512)
        let n = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
