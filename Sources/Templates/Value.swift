// The interpreter's runtime values: TemplateValue plus what only exists while rendering
// (undefined, namespaces, macros, bound methods), with Python's truthiness, equality, ordering
// and str()/repr() rules, which is what jinja2 inherits and what templates are written against.

/// An insertion-ordered dictionary, as Python dicts are.
struct Dict {
    private(set) var keys: [String] = []
    private var storage: [String: Value] = [:]

    init() {}
    init(_ pairs: [(String, Value)]) { for (k, v) in pairs { self[k] = v } }

    subscript(key: String) -> Value? {
        get { storage[key] }
        set {
            if let newValue {
                if storage.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if storage.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    var pairs: [(String, Value)] { keys.map { ($0, storage[$0]!) } }
    var values: [Value] { keys.map { storage[$0]! } }
    var count: Int { keys.count }
}

/// `namespace(...)`: the one mutable object templates have; `set ns.x = ...` inside a loop must
/// be visible after it, so this is a reference.
final class Namespace {
    var attributes: Dict
    init(_ attributes: Dict) { self.attributes = attributes }
}

/// A macro together with the scope its free names resolve in.
struct MacroValue {
    let definition: MacroDefinition
}

/// The body of a `{% call %}` block, rendered by `caller()` inside the macro.
final class CallerValue {
    let body: [Node]
    let parameters: [Parameter]
    let scope: Scope
    init(body: [Node], parameters: [Parameter], scope: Scope) {
        self.body = body
        self.parameters = parameters
        self.scope = scope
    }
}

indirect enum Value {
    /// A missing variable, attribute or key; carries a description for error messages.
    case undefined(String)
    case none
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case list([Value])
    case dict(Dict)
    case namespace(Namespace)
    case macro(MacroValue)
    case caller(CallerValue)
    /// A global function (`raise_exception`, `range`, ...).
    case builtin(String)
    /// `receiver.name` where name is a method of the receiver's type, waiting to be called.
    case method(Value, String)

    init(_ value: TemplateValue) {
        switch value {
        case .none: self = .none
        case let .bool(b): self = .bool(b)
        case let .int(i): self = .int(i)
        case let .double(d): self = .double(d)
        case let .string(s): self = .string(s)
        case let .array(a): self = .list(a.map(Value.init))
        case let .object(o): self = .dict(Dict(o.pairs.map { ($0.0, Value($0.1)) }))
        }
    }

    var isUndefined: Bool { if case .undefined = self { return true } else { return false } }
    var isNone: Bool { if case .none = self { return true } else { return false } }

    /// Python's bool(): empty containers, zero, None and undefined are false.
    var truthy: Bool {
        switch self {
        case .undefined, .none: return false
        case let .bool(b): return b
        case let .int(i): return i != 0
        case let .double(d): return d != 0
        case let .string(s): return !s.isEmpty
        case let .list(l): return !l.isEmpty
        case let .dict(d): return d.count > 0
        case .namespace, .macro, .caller, .builtin, .method: return true
        }
    }

    /// Python's type name, for error messages that match jinja2's wording.
    var typeName: String {
        switch self {
        case .undefined: return "Undefined"
        case .none: return "NoneType"
        case .bool: return "bool"
        case .int: return "int"
        case .double: return "float"
        case .string: return "str"
        case .list: return "list"
        case .dict: return "dict"
        case .namespace: return "Namespace"
        case .macro, .caller: return "Macro"
        case .builtin, .method: return "function"
        }
    }

    /// The numeric value of ints, floats and bools (Python treats bool as int).
    var number: Double? {
        switch self {
        case let .int(i): return Double(i)
        case let .double(d): return d
        case let .bool(b): return b ? 1 : 0
        default: return nil
        }
    }

    var integer: Int? {
        switch self {
        case let .int(i): return i
        case let .bool(b): return b ? 1 : 0
        default: return nil
        }
    }
}

// MARK: - Nesting

/// Deepest nesting of lists, dicts and namespaces a render may build, the same as JSON input may
/// bring: printing, comparing, serialising and releasing values recurse once per level, so a
/// loop wrapping a value in itself 100,000 times would otherwise overflow the stack.
let maxValueDepth = 512

extension Value {
    /// Levels of lists, dicts and namespaces in this value (0 for a scalar), counted no further
    /// than `limit`, so a namespace that contains itself is simply deeper than any limit.
    func nestingDepth(upTo limit: Int) -> Int {
        guard limit > 0 else { return 0 }
        let children: [Value]
        switch self {
        case let .list(items): children = items
        case let .dict(d): children = d.values
        case let .namespace(ns): children = ns.attributes.values
        default: return 0
        }
        var deepest = 0
        for child in children where deepest < limit - 1 {
            deepest = max(deepest, child.nestingDepth(upTo: limit - 1))
        }
        return 1 + deepest
    }
}

// MARK: - Python str() and repr()

extension Value {
    /// What `{{ value }}` prints: Python's str(), with undefined printing as nothing.
    var str: String {
        switch self {
        case .undefined: return ""
        case let .string(s): return s
        default: return repr
        }
    }

    /// Python's repr(), used for values nested in printed lists and dicts.
    var repr: String {
        switch self {
        case .undefined: return ""
        case .none: return "None"
        case let .bool(b): return b ? "True" : "False"
        case let .int(i): return String(i)
        case let .double(d): return pythonFloatRepr(d)
        case let .string(s): return pythonStringRepr(s)
        case let .list(l): return "[" + l.map(\.repr).joined(separator: ", ") + "]"
        case let .dict(d): return "{" + d.pairs.map { pythonStringRepr($0.0) + ": " + $0.1.repr }.joined(separator: ", ") + "}"
        case let .namespace(n): return "<Namespace " + Value.dict(n.attributes).repr + ">"
        case let .macro(m): return "<Macro '\(m.definition.name)'>"
        case .caller: return "<Macro 'caller'>"
        case let .builtin(name): return "<function \(name)>"
        case let .method(_, name): return "<built-in method \(name)>"
        }
    }
}

/// Python's repr() of a float: the shortest digits that round-trip (Swift's description gives
/// the same digits), laid out the Python way: fixed notation for exponents -4..<16, else
/// scientific with a sign and at least two exponent digits.
func pythonFloatRepr(_ d: Double) -> String {
    if d.isNaN { return "nan" }
    if d.isInfinite { return d < 0 ? "-inf" : "inf" }
    if d == 0 { return d.sign == .minus ? "-0.0" : "0.0" }
    let negative = d < 0
    var text = String(describing: abs(d))
    // Split Swift's output into significant digits and a decimal exponent.
    var exponent = 0
    if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
        exponent = Int(text[text.index(after: e)...])!
        text = String(text[..<e])
    }
    var digits = ""
    var pointPosition = 0
    var seenPoint = false
    for ch in text {
        if ch == "." { seenPoint = true; continue }
        digits.append(ch)
        if !seenPoint { pointPosition += 1 }
    }
    // Normalise: strip leading zeros (moving the point) and trailing zeros.
    while digits.count > 1, digits.first == "0" {
        digits.removeFirst()
        pointPosition -= 1
    }
    while digits.count > 1, digits.last == "0" { digits.removeLast() }
    let decimalExponent = pointPosition - 1 + exponent  // value = d.ddd × 10^decimalExponent
    var out = negative ? "-" : ""
    if decimalExponent >= -4 && decimalExponent < 16 {
        if decimalExponent < 0 {
            out += "0." + String(repeating: "0", count: -decimalExponent - 1) + digits
        } else if digits.count > decimalExponent + 1 {
            let cut = digits.index(digits.startIndex, offsetBy: decimalExponent + 1)
            out += digits[..<cut] + "." + digits[cut...]
        } else {
            out += digits + String(repeating: "0", count: decimalExponent + 1 - digits.count) + ".0"
        }
    } else {
        let mantissa = digits.count > 1 ? String(digits.prefix(1)) + "." + digits.dropFirst() : digits
        let sign = decimalExponent < 0 ? "-" : "+"
        let magnitude = abs(decimalExponent)
        out += mantissa + "e" + sign + (magnitude < 10 ? "0" : "") + String(magnitude)
    }
    return out
}

/// Python's repr() of a str: single quotes unless the text has a single quote and no double
/// quote; backslash escapes for the quote, backslash and non-printable characters.
func pythonStringRepr(_ s: String) -> String {
    let quote: Unicode.Scalar = (s.unicodeScalars.contains("'") && !s.unicodeScalars.contains("\"")) ? "\"" : "'"
    var out = String(quote)
    for scalar in s.unicodeScalars {
        switch scalar {
        case quote: out += "\\" + String(quote)
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0) {
                out += "\\x" + hex(scalar.value, width: 2)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    out.unicodeScalars.append(quote)
    return out
}

func hex(_ value: UInt32, width: Int) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

// MARK: - Equality and ordering (Python semantics)

/// Strings compare by Unicode scalars, as Python does; Swift's String == would treat canonically
/// equivalent spellings (é vs e + combining acute) as equal.
func scalarsEqual(_ a: String, _ b: String) -> Bool {
    a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
}

func valuesEqual(_ a: Value, _ b: Value) -> Bool {
    switch (a, b) {
    case (.undefined, .undefined), (.none, .none): return true
    case let (.string(x), .string(y)): return scalarsEqual(x, y)
    case let (.list(x), .list(y)): return x.count == y.count && zip(x, y).allSatisfy { valuesEqual($0, $1) }
    case let (.dict(x), .dict(y)):
        // Python dict equality ignores order.
        guard x.count == y.count else { return false }
        return x.pairs.allSatisfy { key, value in y[key].map { valuesEqual(value, $0) } ?? false }
    case let (.namespace(x), .namespace(y)): return x === y
    default:
        if let x = a.number, let y = b.number { return x == y }
        return false
    }
}

/// Python's `<`; nil when the types are not orderable (a TypeError in Python).
func valueLess(_ a: Value, _ b: Value) -> Bool? {
    switch (a, b) {
    case let (.string(x), .string(y)):
        return x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars) { $0.value < $1.value }
    case let (.list(x), .list(y)):
        for (p, q) in zip(x, y) where !valuesEqual(p, q) { return valueLess(p, q) }
        return x.count < y.count
    default:
        if let x = a.number, let y = b.number { return x < y }
        return nil
    }
}
