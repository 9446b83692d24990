// Expression evaluation: names, attribute and item access, slicing, operators and comparisons,
// with Python's semantics (floor division and modulo, int/float promotion, bool as int).

extension Renderer {
    func evaluate(_ expr: Expr, in scope: Scope) throws(TemplateError) -> Value {
        switch expr {
        case let .literal(l):
            switch l {
            case .none: return .none
            case let .bool(b): return .bool(b)
            case let .int(i): return .int(i)
            case let .double(d): return .double(d)
            case let .string(s): return .string(s)
            }
        case let .name(name, _):
            return scope.lookup(name) ?? .undefined("'\(name)' is undefined")
        case let .list(items):
            var out: [Value] = []
            for e in items { out.append(try checkedNesting(try evaluate(e, in: scope))) }
            return .list(out)
        case let .dict(pairs, location):
            var d = Dict()
            for (k, v) in pairs {
                guard case let .string(key) = try evaluate(k, in: scope) else {
                    throw .runtime("only string keys are supported in dict literals", location)
                }
                d[key] = try checkedNesting(try evaluate(v, in: scope))
            }
            return .dict(d)
        case let .attribute(target, name, location):
            return try attribute(try evaluate(target, in: scope), name, location: location)
        case let .item(target, key, location):
            return try item(try evaluate(target, in: scope), try evaluate(key, in: scope), location: location)
        case let .slice(target, start, stop, step, location):
            let value = try evaluate(target, in: scope)
            let bounds = try [start, stop, step].map { (e: Expr?) throws(TemplateError) -> Value? in
                guard let e else { return nil }
                return try evaluate(e, in: scope)
            }
            return try slice(value, bounds[0], bounds[1], bounds[2], location: location)
        case let .call(callee, arguments, location):
            let function = try evaluate(callee, in: scope)
            return try call(function, try evaluateArguments(arguments, in: scope), location: location)
        case let .filter(target, name, arguments, location):
            let value = try evaluate(target, in: scope)
            return try applyFilter(name, value, try evaluateArguments(arguments, in: scope), location: location)
        case let .test(target, name, arguments, negated, location):
            let value = try evaluate(target, in: scope)
            let result = try applyTest(name, value, try evaluateArguments(arguments, in: scope), location: location)
            return .bool(result != negated)
        case let .negate(e, location):
            switch try evaluate(e, in: scope) {
            case let .int(i): return try checked(0.subtractingReportingOverflow(i), location)
            case let .bool(b): return .int(b ? -1 : 0)
            case let .double(d): return .double(-d)
            case let .undefined(m): throw .runtime(m, location)
            case let v: throw .runtime("bad operand type for unary -: '\(v.typeName)'", location)
            }
        case let .plus(e, location):
            let v = try evaluate(e, in: scope)
            if case let .undefined(m) = v { throw .runtime(m, location) }
            guard v.number != nil else { throw .runtime("bad operand type for unary +: '\(v.typeName)'", location) }
            return v
        case let .not(e):
            return .bool(!(try evaluate(e, in: scope).truthy))
        case let .and(a, b):
            let left = try evaluate(a, in: scope)
            return left.truthy ? try evaluate(b, in: scope) : left
        case let .or(a, b):
            let left = try evaluate(a, in: scope)
            return left.truthy ? left : try evaluate(b, in: scope)
        case let .binary(op, a, b, location):
            return try binary(op, try evaluate(a, in: scope), try evaluate(b, in: scope), location: location)
        case let .compare(first, rest, location):
            var left = try evaluate(first, in: scope)
            for (op, e) in rest {
                let right = try evaluate(e, in: scope)
                if !(try compare(op, left, right, location: location)) { return .bool(false) }
                left = right
            }
            return .bool(true)
        case let .conditional(condition, then, otherwise):
            if try evaluate(condition, in: scope).truthy { return try evaluate(then, in: scope) }
            guard let otherwise else { return .undefined("the inline if-expression evaluated to false and no else section was defined") }
            return try evaluate(otherwise, in: scope)
        }
    }

    // MARK: - Attribute and item access

    /// jinja2's getattr: a method or attribute of the object first, then its item.
    func attribute(_ value: Value, _ name: String, location: SourceLocation) throws(TemplateError) -> Value {
        switch value {
        case let .undefined(message): throw .runtime(message, location)
        case let .dict(d):
            if dictMethodNames.contains(name) { return .method(value, name) }
            return d[name] ?? .undefined("'dict object' has no attribute '\(name)'")
        case .string:
            if stringMethodNames.contains(name) { return .method(value, name) }
        case let .namespace(ns):
            return ns.attributes[name] ?? .undefined("'Namespace object' has no attribute '\(name)'")
        default:
            break
        }
        return .undefined("'\(value.typeName) object' has no attribute '\(name)'")
    }

    /// jinja2's getitem: the item first, then (for string keys) the attribute.
    func item(_ value: Value, _ key: Value, location: SourceLocation) throws(TemplateError) -> Value {
        switch (value, key) {
        case let (.undefined(message), _): throw .runtime(message, location)
        case let (.list(items), _):
            if let i = key.integer {
                let index = i < 0 ? i + items.count : i
                if index >= 0 && index < items.count { return items[index] }
                return .undefined("'list object' has no element \(i)")
            }
        case let (.string(s), _):
            if let i = key.integer {
                let scalars = Array(s.unicodeScalars)
                let index = i < 0 ? i + scalars.count : i
                if index >= 0 && index < scalars.count { return .string(String(scalars[index])) }
                return .undefined("'str object' has no element \(i)")
            }
        case let (.dict(d), .string(k)):
            if let v = d[k] { return v }
        default:
            break
        }
        if case let .string(name) = key { return try attribute(value, name, location: location) }
        return .undefined("'\(value.typeName) object' has no element \(key.repr)")
    }

    /// Python slicing of lists and strings (strings by code point), negative steps included.
    /// `value`, if a list or dict holding it stays within `maxValueDepth`.
    func checkedNesting(_ value: Value) throws(TemplateError) -> Value {
        guard value.nestingDepth(upTo: maxValueDepth) < maxValueDepth else {
            throw .limitExceeded("values nested deeper than \(maxValueDepth) levels")
        }
        return value
    }

    func slice(_ value: Value, _ start: Value?, _ stop: Value?, _ step: Value?, location: SourceLocation) throws(TemplateError) -> Value {
        func bound(_ v: Value?) throws(TemplateError) -> Int? {
            guard let v, !v.isNone else { return nil }
            guard let i = v.integer else { throw .runtime("slice indices must be integers or None", location) }
            return i
        }
        let step = try bound(step) ?? 1
        guard step != 0 else { throw .runtime("slice step cannot be zero", location) }
        let indices = { (count: Int) throws(TemplateError) -> [Int] in
            let (lo, hi) = step > 0 ? (0, count) : (-1, count - 1)
            func clamp(_ i: Int?, _ fallback: Int) -> Int {
                guard var i else { return fallback }
                if i < 0 { i += count }
                return min(max(i, lo), hi)
            }
            var i = clamp(try bound(start), step > 0 ? 0 : count - 1)
            let end = clamp(try bound(stop), step > 0 ? count : -1)
            var out: [Int] = []
            while step > 0 ? i < end : i > end {
                out.append(i)
                // A step past Int's range has left the sequence either way.
                let (next, overflow) = i.addingReportingOverflow(step)
                if overflow { break }
                i = next
            }
            return out
        }
        switch value {
        case let .list(items):
            return .list(try indices(items.count).map { items[$0] })
        case let .string(s):
            let scalars = Array(s.unicodeScalars)
            var out = String.UnicodeScalarView()
            for i in try indices(scalars.count) { out.append(scalars[i]) }
            return .string(String(out))
        case let .undefined(message):
            throw .runtime(message, location)
        default:
            // jinja2's getitem turns the TypeError of slicing a non-sequence into undefined.
            return .undefined("'\(value.typeName) object' is not subscriptable")
        }
    }

    // MARK: - Operators

    func binary(_ op: BinaryOp, _ a: Value, _ b: Value, location: SourceLocation) throws(TemplateError) -> Value {
        if op == .concat {
            let text = a.str + b.str
            if text.utf8.count > limits.maxOutputBytes { throw .limitExceeded("string longer than \(limits.maxOutputBytes) bytes") }
            return .string(text)
        }
        if case let .undefined(m) = a { throw .runtime(m, location) }
        if case let .undefined(m) = b { throw .runtime(m, location) }
        let unsupported = TemplateError.runtime("unsupported operand type(s) for \(op.rawValue): '\(a.typeName)' and '\(b.typeName)'", location)
        switch (op, a, b) {
        case let (.add, .string(x), .string(y)):
            if x.utf8.count + y.utf8.count > limits.maxOutputBytes { throw .limitExceeded("string longer than \(limits.maxOutputBytes) bytes") }
            return .string(x + y)
        case let (.add, .list(x), .list(y)): return .list(x + y)
        case (.add, .string, _), (.add, .list, _):
            // Python's wording, so errors read the same as in Hugging Face's renderer.
            throw .runtime("can only concatenate \(a.typeName) (not \"\(b.typeName)\") to \(a.typeName)", location)
        case let (.mul, .string(s), n), let (.mul, n, .string(s)):
            guard let count = n.integer else { throw unsupported }
            let (bytes, overflow) = s.utf8.count.multipliedReportingOverflow(by: max(count, 0))
            guard !overflow, bytes <= limits.maxOutputBytes else { throw .limitExceeded("string longer than \(limits.maxOutputBytes) bytes") }
            return .string(String(repeating: s, count: max(count, 0)))
        case let (.mul, .list(l), n), let (.mul, n, .list(l)):
            guard let count = n.integer else { throw unsupported }
            let (items, overflow) = l.count.multipliedReportingOverflow(by: max(count, 0))
            guard !overflow, items <= limits.maxLoopIterations else { throw .limitExceeded("list longer than \(limits.maxLoopIterations) items") }
            return .list(Array([[Value]](repeating: l, count: max(count, 0)).joined()))
        case (.mod, .string, _):
            throw .unsupported(construct: "printf-style string formatting with '%'", at: location)
        default:
            break
        }
        if let x = a.integer, let y = b.integer {
            switch op {
            case .add: return try checked(x.addingReportingOverflow(y), location)
            case .sub: return try checked(x.subtractingReportingOverflow(y), location)
            case .mul: return try checked(x.multipliedReportingOverflow(by: y), location)
            case .div:
                guard y != 0 else { throw .runtime("division by zero", location) }
                return .double(Double(x) / Double(y))
            case .floorDiv, .mod:
                guard y != 0 else { throw .runtime("integer division or modulo by zero", location) }
                // Int.min / -1 is the one quotient that does not fit (and Swift traps on its remainder too).
                if y == -1 { return op == .floorDiv ? try checked(0.subtractingReportingOverflow(x), location) : .int(0) }
                var q = x / y, r = x % y
                if r != 0 && ((r < 0) != (y < 0)) { q -= 1; r += y }
                return .int(op == .floorDiv ? q : r)
            case .pow:
                if y >= 0 {
                    var result = 1
                    for _ in 0..<min(y, 64) {
                        let (p, o) = result.multipliedReportingOverflow(by: x)
                        if o { throw .runtime("integer overflow", location) }
                        result = p
                    }
                    if y > 64 && x.magnitude > 1 { throw .runtime("integer overflow", location) }
                    return .int(y > 64 ? (x == -1 && y % 2 == 1 ? -1 : (x == 0 ? 0 : 1)) : result)
                }
                return .double(pow(Double(x), Double(y)))
            case .concat: break
            }
        }
        guard let x = a.number, let y = b.number else { throw unsupported }
        switch op {
        case .add: return .double(x + y)
        case .sub: return .double(x - y)
        case .mul: return .double(x * y)
        case .div:
            guard y != 0 else { throw .runtime("float division by zero", location) }
            return .double(x / y)
        case .floorDiv:
            guard y != 0 else { throw .runtime("float floor division by zero", location) }
            return .double((x / y).rounded(.down))
        case .mod:
            guard y != 0 else { throw .runtime("float modulo", location) }
            let r = x - y * (x / y).rounded(.down)
            return .double(r)
        case .pow: return .double(pow(x, y))
        case .concat: throw unsupported
        }
    }

    private func checked(_ result: (partialValue: Int, overflow: Bool), _ location: SourceLocation) throws(TemplateError) -> Value {
        if result.overflow { throw .runtime("integer overflow", location) }
        return .int(result.partialValue)
    }

    func compare(_ op: CompareOp, _ a: Value, _ b: Value, location: SourceLocation) throws(TemplateError) -> Bool {
        switch op {
        case .eq: return valuesEqual(a, b)
        case .ne: return !valuesEqual(a, b)
        case .isIn: return try contains(b, a, location: location)
        case .notIn: return !(try contains(b, a, location: location))
        case .lt, .le, .gt, .ge:
            if case let .undefined(m) = a { throw .runtime(m, location) }
            if case let .undefined(m) = b { throw .runtime(m, location) }
            let (x, y) = op == .lt || op == .le ? (a, b) : (b, a)
            guard let less = valueLess(x, y) else {
                throw .runtime("'\(op.rawValue)' not supported between instances of '\(a.typeName)' and '\(b.typeName)'", location)
            }
            return less || ((op == .le || op == .ge) && valuesEqual(a, b))
        }
    }

    /// Python's `needle in container`.
    func contains(_ container: Value, _ needle: Value, location: SourceLocation) throws(TemplateError) -> Bool {
        switch container {
        case let .string(s):
            guard case let .string(n) = needle else {
                throw .runtime("'in <string>' requires string as left operand, not \(needle.typeName)", location)
            }
            return n.isEmpty || findScalars(Array(s.unicodeScalars), Array(n.unicodeScalars), from: 0) != nil
        case let .list(items): return items.contains { valuesEqual($0, needle) }
        case let .dict(d):
            guard case let .string(k) = needle else { return false }
            return d[k] != nil
        case .undefined: return false
        default: throw .runtime("argument of type '\(container.typeName)' is not iterable", location)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// First index of `needle` in `haystack` at or after `from`.
func findScalars(_ haystack: [Unicode.Scalar], _ needle: [Unicode.Scalar], from: Int) -> Int? {
    guard !needle.isEmpty else { return from <= haystack.count ? from : nil }
    guard haystack.count >= needle.count else { return nil }
    var i = from
    while i + needle.count <= haystack.count {
        if haystack[i] == needle[0] && haystack[i..<i + needle.count].elementsEqual(needle) { return i }
        i += 1
    }
    return nil
}
