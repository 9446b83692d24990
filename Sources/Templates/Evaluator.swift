// Renders the AST. Scoping follows jinja2: each for-loop iteration and each macro call gets a
// fresh scope over its parent (so `set` inside a loop does not leak out, which is why templates
// use namespace()), while if-blocks share their enclosing scope. Undefined values follow
// jinja2's default Undefined: they print as nothing, are false, iterate as empty, and raise
// when used in arithmetic, comparison, attribute access or a call.

/// A variable scope; lookups walk outwards through the parents.
final class Scope {
    var variables: [String: Value] = [:]
    let parent: Scope?
    init(parent: Scope?) { self.parent = parent }

    func lookup(_ name: String) -> Value? {
        var scope: Scope? = self
        while let s = scope {
            if let v = s.variables[name] { return v }
            scope = s.parent
        }
        return nil
    }
}

/// What a statement list tells its loop: keep going, or a `break`/`continue` happened.
enum Flow { case normal, breakLoop, continueLoop }

final class Renderer {
    let limits: RenderLimits
    let clock: TemplateClock
    private(set) var output = ""
    private var outputBytes = 0
    private var iterations = 0
    private var callDepth = 0
    let root: Scope

    init(globals: [String: Value], limits: RenderLimits, clock: TemplateClock) {
        self.limits = limits
        self.clock = clock
        root = Scope(parent: nil)
        for name in globalFunctionNames { root.variables[name] = .builtin(name) }
        for (k, v) in globals { root.variables[k] = v }
    }

    // MARK: - Output and limits

    func write(_ text: String) throws(TemplateError) {
        outputBytes += text.utf8.count
        if outputBytes > limits.maxOutputBytes {
            throw .limitExceeded("output longer than \(limits.maxOutputBytes) bytes")
        }
        output += text
    }

    func countIteration() throws(TemplateError) {
        iterations += 1
        if iterations > limits.maxLoopIterations {
            throw .limitExceeded("more than \(limits.maxLoopIterations) loop iterations")
        }
    }

    /// Renders nodes into a fresh buffer and returns it (macro bodies, caller(), set blocks).
    func capture(_ nodes: [Node], in scope: Scope) throws(TemplateError) -> String {
        let saved = output
        output = ""
        defer { output = saved }
        _ = try execute(nodes, in: scope)
        return output
    }

    // MARK: - Statements

    func execute(_ nodes: [Node], in scope: Scope) throws(TemplateError) -> Flow {
        for node in nodes {
            let flow = try execute(node, in: scope)
            if flow != .normal { return flow }
        }
        return .normal
    }

    private func execute(_ node: Node, in scope: Scope) throws(TemplateError) -> Flow {
        switch node {
        case let .text(s):
            try write(s)
        case let .output(expr, _):
            try write(try evaluate(expr, in: scope).str)
        case let .conditional(branches, otherwise):
            for (condition, body) in branches where try evaluate(condition, in: scope).truthy {
                return try execute(body, in: scope)
            }
            return try execute(otherwise, in: scope)
        case let .loop(targets, iterable, filter, body, otherwise, location):
            return try runLoop(targets: targets, iterable: iterable, filter: filter, body: body, otherwise: otherwise, location: location, in: scope)
        case let .assign(target, expr, location):
            let value = try evaluate(expr, in: scope)
            switch target {
            case let .names(names) where names.count == 1:
                scope.variables[names[0]] = value
            case let .names(names):
                let items = try unpack(value, count: names.count, location: location)
                for (n, v) in zip(names, items) { scope.variables[n] = v }
            case let .attribute(object, attribute):
                guard case let .namespace(ns) = scope.lookup(object) ?? .undefined("'\(object)' is undefined") else {
                    throw .runtime("cannot assign attribute on non-namespace object", location)
                }
                let previous = ns.attributes[attribute]
                ns.attributes[attribute] = value
                // Checked after assigning, so a namespace stored into itself (a cycle) is caught.
                if Value.namespace(ns).nestingDepth(upTo: maxValueDepth) >= maxValueDepth {
                    ns.attributes[attribute] = previous
                    throw .limitExceeded("values nested deeper than \(maxValueDepth) levels")
                }
            }
        case let .assignBlock(name, body):
            scope.variables[name] = .string(try capture(body, in: scope))
        case let .macro(definition):
            scope.variables[definition.name] = .macro(MacroValue(definition: definition))
        case let .callBlock(call, parameters, body, location):
            guard case let .call(callee, arguments, _) = call else { return .normal }
            let caller = CallerValue(body: body, parameters: parameters, scope: scope)
            let function = try evaluate(callee, in: scope)
            guard case let .macro(macro) = function else { throw .runtime("call block target is not a macro", location) }
            try write(try callMacro(macro, arguments: try evaluateArguments(arguments, in: scope), caller: caller, location: location).str)
        case .breakLoop:
            return .breakLoop
        case .continueLoop:
            return .continueLoop
        case let .block(body):
            return try execute(body, in: scope)
        }
        return .normal
    }

    private func unpack(_ value: Value, count: Int, location: SourceLocation) throws(TemplateError) -> [Value] {
        let items = try iterate(value, location: location)
        guard items.count == count else {
            throw .runtime(items.count < count ? "not enough values to unpack (expected \(count), got \(items.count))"
                : "too many values to unpack (expected \(count))", location)
        }
        return items
    }

    /// Python iteration: lists by element, dicts by key, strings by code point.
    func iterate(_ value: Value, location: SourceLocation?) throws(TemplateError) -> [Value] {
        switch value {
        case let .list(items): return items
        case let .dict(d): return d.keys.map { .string($0) }
        case let .string(s): return s.unicodeScalars.map { .string(String($0)) }
        case .undefined: return []
        default: throw .runtime("'\(value.typeName)' object is not iterable", location)
        }
    }

    private func bind(_ targets: [String], _ item: Value, in scope: Scope, location: SourceLocation) throws(TemplateError) {
        if targets.count == 1 {
            scope.variables[targets[0]] = item
        } else {
            for (n, v) in zip(targets, try unpack(item, count: targets.count, location: location)) { scope.variables[n] = v }
        }
    }

    private func runLoop(targets: [String], iterable: Expr, filter: Expr?, body: [Node], otherwise: [Node],
                         location: SourceLocation, in scope: Scope) throws(TemplateError) -> Flow {
        var items = try iterate(try evaluate(iterable, in: scope), location: location)
        if let filter {
            var kept: [Value] = []
            for item in items {
                let probe = Scope(parent: scope)
                try bind(targets, item, in: probe, location: location)
                if try evaluate(filter, in: probe).truthy { kept.append(item) }
            }
            items = kept
        }
        if items.isEmpty { return try execute(otherwise, in: scope) }
        let length = items.count
        for (index, item) in items.enumerated() {
            try countIteration()
            let iterationScope = Scope(parent: scope)
            try bind(targets, item, in: iterationScope, location: location)
            var loop = Dict()
            loop["index"] = .int(index + 1)
            loop["index0"] = .int(index)
            loop["revindex"] = .int(length - index)
            loop["revindex0"] = .int(length - index - 1)
            loop["first"] = .bool(index == 0)
            loop["last"] = .bool(index == length - 1)
            loop["length"] = .int(length)
            loop["depth"] = .int(1)
            loop["depth0"] = .int(0)
            loop["previtem"] = index > 0 ? items[index - 1] : .undefined("there is no previous item")
            loop["nextitem"] = index < length - 1 ? items[index + 1] : .undefined("there is no next item")
            loop["cycle"] = .method(.int(index), "cycle")
            iterationScope.variables["loop"] = .dict(loop)
            if try execute(body, in: iterationScope) == .breakLoop { break }
        }
        return .normal
    }

    // MARK: - Calls

    struct EvaluatedArguments {
        var positional: [Value] = []
        var keyword: [(String, Value)] = []

        func keywordValue(_ name: String) -> Value? { keyword.first { $0.0 == name }?.1 }

        /// Argument `name` given by keyword or at position `position`.
        func value(_ name: String, _ position: Int) -> Value? {
            keywordValue(name) ?? (position < positional.count ? positional[position] : nil)
        }
    }

    func evaluateArguments(_ arguments: Arguments, in scope: Scope) throws(TemplateError) -> EvaluatedArguments {
        var out = EvaluatedArguments()
        for e in arguments.positional { out.positional.append(try evaluate(e, in: scope)) }
        for (k, e) in arguments.keyword { out.keyword.append((k, try evaluate(e, in: scope))) }
        return out
    }

    func call(_ function: Value, _ arguments: EvaluatedArguments, location: SourceLocation) throws(TemplateError) -> Value {
        switch function {
        case let .builtin(name): return try callGlobal(name, arguments, location: location)
        case let .method(receiver, name): return try callMethod(receiver, name, arguments, location: location)
        case let .macro(macro): return try callMacro(macro, arguments: arguments, caller: nil, location: location)
        case let .caller(caller):
            let scope = Scope(parent: caller.scope)
            try bindParameters(caller.parameters, arguments, into: scope, name: "caller", location: location)
            return .string(try capture(caller.body, in: scope))
        case let .undefined(message): throw .runtime(message, location)
        default: throw .runtime("'\(function.typeName)' object is not callable", location)
        }
    }

    private func bindParameters(_ parameters: [Parameter], _ arguments: EvaluatedArguments, into scope: Scope,
                                name: String, location: SourceLocation) throws(TemplateError) {
        guard arguments.positional.count <= parameters.count else {
            throw .runtime("macro '\(name)' takes not more than \(parameters.count) argument(s)", location)
        }
        for (k, _) in arguments.keyword where !parameters.contains(where: { $0.name == k }) {
            throw .runtime("macro '\(name)' takes no keyword argument '\(k)'", location)
        }
        for (i, parameter) in parameters.enumerated() {
            if let v = arguments.value(parameter.name, i) {
                scope.variables[parameter.name] = v
            } else if let d = parameter.defaultValue {
                scope.variables[parameter.name] = try evaluate(d, in: scope)
            } else {
                scope.variables[parameter.name] = .undefined("parameter '\(parameter.name)' was not provided")
            }
        }
    }

    func callMacro(_ macro: MacroValue, arguments: EvaluatedArguments, caller: CallerValue?,
                   location: SourceLocation) throws(TemplateError) -> Value {
        callDepth += 1
        defer { callDepth -= 1 }
        if callDepth > limits.maxCallDepth { throw .limitExceeded("macro calls nested deeper than \(limits.maxCallDepth)") }
        // Macros see their parameters and the template's top-level names at call time.
        let scope = Scope(parent: root)
        try bindParameters(macro.definition.parameters, arguments, into: scope, name: macro.definition.name, location: location)
        if let caller { scope.variables["caller"] = .caller(caller) }
        return .string(try capture(macro.definition.body, in: scope))
    }
}

/// Bounds on one render, so a hostile or buggy template cannot hang or exhaust memory.
public struct RenderLimits: Sendable {
    /// Largest rendered prompt, in UTF-8 bytes.
    public var maxOutputBytes: Int
    /// Total loop iterations across the render (also caps `range()` lengths).
    public var maxLoopIterations: Int
    /// Deepest nesting of macro calls (recursion).
    public var maxCallDepth: Int

    public init(maxOutputBytes: Int = 16 << 20, maxLoopIterations: Int = 1_000_000, maxCallDepth: Int = 64) {
        self.maxOutputBytes = maxOutputBytes
        self.maxLoopIterations = maxLoopIterations
        self.maxCallDepth = maxCallDepth
    }
}
