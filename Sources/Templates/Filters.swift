// Filters (`value | name(args)`) and tests (`value is name args`). Behaviour follows jinja2's
// filters.py/tests.py, except `tojson`, which is Hugging Face's override:
// json.dumps(value, ensure_ascii=False, indent=indent, separators=..., sort_keys=False).

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let supportedFilterNames: Set<String> = [
    "abs", "capitalize", "count", "d", "default", "dictsort", "e", "escape", "first", "float", "indent", "int",
    "items", "join", "last", "length", "list", "lower", "map", "max", "min", "reject", "rejectattr", "replace",
    "reverse", "round", "safe", "select", "selectattr", "sort", "string", "sum", "title", "tojson", "trim",
    "unique", "upper", "wordcount",
]

let supportedTestNames: Set<String> = [
    "boolean", "callable", "defined", "divisibleby", "eq", "equalto", "escaped", "even", "false", "filter", "float",
    "ge", "greaterthan", "gt", "in", "integer", "iterable", "le", "lessthan", "lower", "lt", "mapping", "ne", "none",
    "number", "odd", "sameas", "sequence", "string", "test", "true", "undefined", "upper", "==", "!=", "<", "<=",
    ">", ">=",
]

extension Renderer {
    func applyFilter(_ name: String, _ value: Value, _ args: EvaluatedArguments, location: SourceLocation) throws(TemplateError) -> Value {
        func arg(_ name: String, _ position: Int) -> Value? { args.value(name, position) }
        switch name {
        case "trim":
            return .string(pyStrip(value.str, chars: arg("chars", 0).flatMap { $0.isNone ? nil : $0.str }, left: true, right: true))
        case "length", "count":
            switch value {
            case let .string(s): return .int(s.unicodeScalars.count)
            case let .list(l): return .int(l.count)
            case let .dict(d): return .int(d.count)
            case .undefined: return .int(0)
            default: throw .runtime("object of type '\(value.typeName)' has no len()", location)
            }
        case "tojson":
            let indent = arg("indent", 0)?.integer
            let sortKeys = arg("sort_keys", 3)?.truthy ?? false
            do {
                return .string(try jsonDumps(value, indent: indent, sortKeys: sortKeys, maxBytes: limits.maxOutputBytes))
            } catch let TemplateError.runtime(message, _) {
                throw .runtime(message, location)
            }
        case "upper": return .string(value.str.uppercased())
        case "lower": return .string(value.str.lowercased())
        case "capitalize": return .string(pyCapitalize(value.str))
        case "title": return .string(jinjaTitle(value.str))
        case "string": return .string(value.str)
        case "safe": return value
        case "e", "escape":
            var out = ""
            for ch in value.str.unicodeScalars {
                switch ch {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                case "\"": out += "&#34;"
                case "'": out += "&#39;"
                default: out.unicodeScalars.append(ch)
                }
            }
            return .string(out)
        case "replace":
            guard let old = arg("old", 0), let new = arg("new", 1) else { throw .runtime("replace needs old and new", location) }
            let count = arg("count", 2)?.integer
            return .string(pyReplace(value.str, old.str, new.str, count: count))
        case "join":
            let separator = arg("d", 0)?.str ?? ""
            var items = try iterate(value, location: location)
            if let attribute = arg("attribute", 1) {
                items = try items.map { (v: Value) throws(TemplateError) -> Value in try attributePath(v, attribute, location: location) }
            }
            return .string(items.map(\.str).joined(separator: separator))
        case "default", "d":
            let fallback = arg("default_value", 0) ?? .string("")
            let boolean = arg("boolean", 1)?.truthy ?? false
            return value.isUndefined || (boolean && !value.truthy) ? fallback : value
        case "items":
            switch value {
            case let .dict(d): return .list(d.pairs.map { .list([.string($0.0), $0.1]) })
            case .undefined: return .list([])
            default: throw .runtime("can only get item pairs from a mapping", location)
            }
        case "list": return .list(try iterate(value, location: location))
        case "first", "last":
            let items = try iterate(value, location: location)
            return (name == "first" ? items.first : items.last) ?? .undefined("No \(name) item, sequence was empty.")
        case "reverse":
            if case let .string(s) = value { return .string(String(String.UnicodeScalarView(s.unicodeScalars.reversed()))) }
            return .list(try iterate(value, location: location).reversed())
        case "unique":
            var seen: [Value] = []
            for item in try iterate(value, location: location) where !seen.contains(where: { valuesEqual($0, item) }) { seen.append(item) }
            return .list(seen)
        case "int":
            let fallback = arg("default", 0) ?? .int(0)
            switch value {
            case let .int(i): return .int(i)
            case let .bool(b): return .int(b ? 1 : 0)
            case let .double(d): return d.isFinite ? .int(Int(d)) : fallback
            case let .string(s):
                let t = pyStrip(s, chars: nil, left: true, right: true)
                if let i = Int(t) { return .int(i) }
                if let d = Double(t), d.isFinite { return .int(Int(d)) }
                return fallback
            default: return fallback
            }
        case "float":
            let fallback = arg("default", 0) ?? .double(0)
            if let n = value.number { return .double(n) }
            if case let .string(s) = value, let d = Double(pyStrip(s, chars: nil, left: true, right: true)) { return .double(d) }
            return fallback
        case "abs":
            switch value {
            case let .int(i):
                guard i != .min else { throw .runtime("integer overflow", location) }
                return .int(abs(i))
            case let .double(d): return .double(abs(d))
            case let .bool(b): return .int(b ? 1 : 0)
            default: throw .runtime("bad operand type for abs(): '\(value.typeName)'", location)
            }
        case "round":
            guard let x = value.number else { throw .runtime("round needs a number", location) }
            let precision = arg("precision", 0)?.integer ?? 0
            let method = arg("method", 1)?.str ?? "common"
            let scale = pow(10.0, Double(precision))
            let scaled = x * scale
            let rounded: Double
            switch method {
            case "ceil": rounded = scaled.rounded(.up)
            case "floor": rounded = scaled.rounded(.down)
            default: rounded = scaled.rounded(.toNearestOrAwayFromZero)
            }
            return .double(rounded / scale)
        case "indent":
            let width = arg("width", 0)
            let spaces = width?.integer ?? 4
            guard spaces <= limits.maxOutputBytes else { throw .limitExceeded("indent wider than \(limits.maxOutputBytes) bytes") }
            // As Python's " " * n, a negative width is no indent.
            let pad = width.flatMap { v -> String? in if case let .string(s) = v { return s } else { return nil } }
                ?? String(repeating: " ", count: max(0, spaces))
            let first = arg("first", 1)?.truthy ?? false
            let blank = arg("blank", 2)?.truthy ?? false
            var lines = value.str.components(separatedByNewline: ())
            for i in lines.indices where (i > 0 || first) && (blank || !lines[i].allSatisfy(pyIsSpace)) {
                lines[i] = pad.unicodeScalars.map { $0 } + lines[i]
            }
            return .string(lines.map { String(String.UnicodeScalarView($0)) }.joined(separator: "\n"))
        case "wordcount":
            return .int(pySplit(value.str, separator: nil, maxSplit: -1).count)
        case "min", "max", "sum", "sort", "dictsort":
            return try aggregate(name, value, args, location: location)
        case "selectattr", "rejectattr", "select", "reject":
            return try selectFilter(name, value, args, location: location)
        case "map":
            let items = try iterate(value, location: location)
            if let attribute = args.keywordValue("attribute") {
                let fallback = args.keywordValue("default")
                return .list(try items.map { (v: Value) throws(TemplateError) -> Value in
                    let r = try attributePath(v, attribute, location: location)
                    return r.isUndefined ? (fallback ?? r) : r
                })
            }
            guard let filterName = args.positional.first?.str, supportedFilterNames.contains(filterName) else {
                throw .runtime("map needs an attribute or a supported filter name", location)
            }
            let rest = EvaluatedArguments(positional: Array(args.positional.dropFirst()), keyword: args.keyword)
            return .list(try items.map { (v: Value) throws(TemplateError) -> Value in try applyFilter(filterName, v, rest, location: location) })
        default:
            throw .unsupported(construct: "filter '\(name)'", at: location)
        }
    }

    /// `a.b.c` style attribute paths (selectattr, map, join, sort use them); integers index lists.
    func attributePath(_ value: Value, _ path: Value, location: SourceLocation) throws(TemplateError) -> Value {
        if let i = path.integer { return try item(value, .int(i), location: location) }
        var current = value
        for part in path.str.split(separator: ".") {
            if current.isUndefined { return current }
            current = try item(current, Int(part).map(Value.int) ?? .string(String(part)), location: location)
        }
        return current
    }

    private func selectFilter(_ name: String, _ value: Value, _ args: EvaluatedArguments, location: SourceLocation) throws(TemplateError) -> Value {
        let byAttribute = name.hasSuffix("attr")
        let keep = name.hasPrefix("select")
        var positional = args.positional
        var attribute: Value?
        if byAttribute {
            guard !positional.isEmpty else { throw .runtime("\(name) needs an attribute name", location) }
            attribute = positional.removeFirst()
        }
        let testName = positional.isEmpty ? nil : positional.removeFirst().str
        if let testName, !supportedTestNames.contains(testName) {
            throw .unsupported(construct: "test '\(testName)'", at: location)
        }
        let testArgs = EvaluatedArguments(positional: positional, keyword: args.keyword)
        var out: [Value] = []
        for item in try iterate(value, location: location) {
            let subject = try attribute.map { (a: Value) throws(TemplateError) -> Value in try attributePath(item, a, location: location) } ?? item
            let passed = try testName.map { (t: String) throws(TemplateError) -> Bool in try applyTest(t, subject, testArgs, location: location) } ?? subject.truthy
            if passed == keep { out.append(item) }
        }
        return .list(out)
    }

    private func aggregate(_ name: String, _ value: Value, _ args: EvaluatedArguments, location: SourceLocation) throws(TemplateError) -> Value {
        if name == "dictsort" {
            guard case let .dict(d) = value else { throw .runtime("dictsort needs a mapping", location) }
            let byValue = args.value("by", 1)?.str == "value"
            let reverse = args.value("reverse", 2)?.truthy ?? false
            var pairs = d.pairs
            try sortValues(&pairs, key: { byValue ? $0.1 : .string($0.0.lowercased()) }, location: location)
            if reverse { pairs.reverse() }
            return .list(pairs.map { .list([.string($0.0), $0.1]) })
        }
        var items = try iterate(value, location: location)
        let attribute = args.keywordValue("attribute")
        let key = { (v: Value) throws(TemplateError) -> Value in
            var k = v
            if let attribute { k = try self.attributePath(v, attribute, location: location) }
            if case let .string(s) = k, !(args.keywordValue("case_sensitive")?.truthy ?? false) { return .string(s.lowercased()) }
            return k
        }
        switch name {
        case "sum":
            var total = args.value("start", 1) ?? .int(0)
            for item in items {
                let v = attribute == nil ? item : try attributePath(item, attribute!, location: location)
                total = try binary(.add, total, v, location: location)
            }
            return total
        case "sort":
            try sortValues(&items, key: key, location: location)
            if args.value("reverse", 0)?.truthy ?? false { items.reverse() }
            return .list(items)
        default:  // min, max
            guard !items.isEmpty else { return .undefined("No aggregated item, sequence was empty.") }
            var best = items[0]
            for item in items.dropFirst() {
                guard let less = valueLess(try key(item), try key(best)), let greater = valueLess(try key(best), try key(item)) else {
                    throw .runtime("values are not comparable", location)
                }
                if name == "min" ? less : greater { best = item }
            }
            return best
        }
    }

    private func sortValues<T>(_ items: inout [T], key: (T) throws(TemplateError) -> Value, location: SourceLocation) throws(TemplateError) {
        let keys = try items.map { (t: T) throws(TemplateError) -> Value in try key(t) }
        var failed = false
        let order = keys.indices.sorted { i, j in
            guard let less = valueLess(keys[i], keys[j]) else { failed = true; return false }
            return less || (!valueLess(keys[j], keys[i])! && i < j)  // stable, like Python's sort
        }
        if failed { throw .runtime("values are not comparable", location) }
        items = order.map { items[$0] }
    }

    func applyTest(_ name: String, _ value: Value, _ args: EvaluatedArguments, location: SourceLocation) throws(TemplateError) -> Bool {
        let other = args.positional.first ?? .undefined("missing test argument")
        switch name {
        case "defined": return !value.isUndefined
        case "undefined": return value.isUndefined
        case "none": return value.isNone
        case "string": if case .string = value { return true } else { return false }
        case "mapping": if case .dict = value { return true } else { return false }
        case "boolean": if case .bool = value { return true } else { return false }
        case "true": if case .bool(true) = value { return true } else { return false }
        case "false": if case .bool(false) = value { return true } else { return false }
        case "integer": if case .int = value { return true } else { return false }
        case "float": if case .double = value { return true } else { return false }
        case "number": return value.number != nil
        case "iterable":
            switch value {
            case .string, .list, .dict, .undefined: return true
            default: return false
            }
        case "sequence":
            switch value {
            case .string, .list, .dict: return true
            default: return false
            }
        case "callable":
            switch value {
            case .macro, .caller, .builtin, .method: return true
            default: return false
            }
        case "even", "odd", "divisibleby":
            // jinja2 tests `value % 2 == 1` etc., so floats work with Python's modulo.
            let divisor = name == "divisibleby" ? other : .int(2)
            let remainder = try binary(.mod, value, divisor, location: location)
            return valuesEqual(remainder, .int(name == "odd" ? 1 : 0))
        case "eq", "equalto", "==": return valuesEqual(value, other)
        case "ne", "!=": return !valuesEqual(value, other)
        case "lt", "lessthan", "<": return try compare(.lt, value, other, location: location)
        case "le", "<=": return try compare(.le, value, other, location: location)
        case "gt", "greaterthan", ">": return try compare(.gt, value, other, location: location)
        case "ge", ">=": return try compare(.ge, value, other, location: location)
        case "in": return try contains(other, value, location: location)
        case "sameas":
            switch (value, other) {
            case (.none, .none): return true
            case let (.bool(a), .bool(b)): return a == b
            case let (.namespace(a), .namespace(b)): return a === b
            default: return false
            }
        case "lower": return value.str == value.str.lowercased()
        case "upper": return value.str == value.str.uppercased()
        case "escaped": return false
        case "filter": return supportedFilterNames.contains(value.str)
        case "test": return supportedTestNames.contains(value.str)
        default: throw .unsupported(construct: "test '\(name)'", at: location)
        }
    }
}

private extension String {
    /// Lines split on "\n" only, as unicode-scalar arrays (indent keeps other characters).
    func components(separatedByNewline: ()) -> [[Unicode.Scalar]] {
        var lines: [[Unicode.Scalar]] = [[]]
        for s in unicodeScalars {
            if s == "\n" { lines.append([]) } else { lines[lines.count - 1].append(s) }
        }
        return lines
    }
}
