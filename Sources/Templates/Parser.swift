// Recursive-descent parser from tokens to the AST, following jinja2's grammar and operator
// precedence (parser.py): conditional < or < and < not < comparison < + - < ~ < * / // % < ** <
// unary - + < postfix (. [] ()) < filters and tests. Names of filters, tests, methods and
// functions are checked here, so an unsupported construct fails when the template is loaded.

struct Parser {
    private let tokens: [Token]
    private var index = 0
    private var definedMacros: Set<String> = []
    private var calledNames: [(String, SourceLocation)] = []
    private var loopDepth = 0
    /// Current nesting: open blocks, sub-expressions and operands folded into a chain.
    private var depth = 0

    /// Deepest nesting accepted. Each level is a level of recursion here, in the renderer and
    /// when the AST is released, so without a bound a template nested a few thousand levels deep
    /// overflows the stack. Real chat templates stay below 20.
    static let maxNesting = 256

    init(tokens: [Token]) { self.tokens = tokens }

    /// Enters one level of nesting; the caller leaves it with `depth -= 1` (usually in a defer).
    private mutating func descend() throws(TemplateError) {
        depth += 1
        guard depth <= Self.maxNesting else {
            throw .limitExceeded("template nested deeper than \(Self.maxNesting) levels at \(current.location)")
        }
    }

    /// Parses a whole template and validates every called function name.
    mutating func parseTemplate() throws(TemplateError) -> [Node] {
        let (nodes, end) = try parseNodes(until: [])
        if let end { throw .syntax("unexpected '\(end)'", current.location) }
        for (name, location) in calledNames where !definedMacros.contains(name) && !globalFunctionNames.contains(name) && name != "caller" {
            throw .unsupported(construct: "function '\(name)'", at: location)
        }
        return nodes
    }

    // MARK: - Token helpers

    private var current: Token { tokens[index] }
    private var next: Token { tokens[min(index + 1, tokens.count - 1)] }

    private mutating func advance() -> Token {
        let t = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return t
    }

    private func isOp(_ op: String) -> Bool { current.kind == .op(op) }
    private func isName(_ name: String) -> Bool { current.kind == .name(name) }

    private mutating func expectOp(_ op: String) throws(TemplateError) {
        guard isOp(op) else { throw .syntax("expected '\(op)', got \(describe(current))", current.location) }
        _ = advance()
    }

    private mutating func expectName() throws(TemplateError) -> String {
        guard case let .name(n) = current.kind else { throw .syntax("expected a name, got \(describe(current))", current.location) }
        _ = advance()
        return n
    }

    private mutating func expectKeyword(_ keyword: String) throws(TemplateError) {
        guard isName(keyword) else { throw .syntax("expected '\(keyword)', got \(describe(current))", current.location) }
        _ = advance()
    }

    private mutating func expectBlockEnd() throws(TemplateError) {
        guard current.kind == .blockEnd else { throw .syntax("expected end of statement block, got \(describe(current))", current.location) }
        _ = advance()
    }

    private func describe(_ t: Token) -> String {
        switch t.kind {
        case let .text(s): return "text '\(s.prefix(20))'"
        case .blockBegin: return "'{%'"
        case .blockEnd: return "'%}'"
        case .variableBegin: return "'{{'"
        case .variableEnd: return "'}}'"
        case let .name(n): return "'\(n)'"
        case let .string(s): return "string '\(s.prefix(20))'"
        case let .int(i): return "'\(i)'"
        case let .float(d): return "'\(d)'"
        case let .op(o): return "'\(o)'"
        case .eof: return "end of template"
        }
    }

    // MARK: - Statements

    /// Parses nodes until a `{% keyword` with keyword in `terminators`; consumes the `{%` and the
    /// keyword and returns it (nil at end of template).
    private mutating func parseNodes(until terminators: Set<String>) throws(TemplateError) -> ([Node], String?) {
        try descend()
        defer { depth -= 1 }
        var nodes: [Node] = []
        while true {
            let token = current
            switch token.kind {
            case .eof:
                if !terminators.isEmpty {
                    throw .syntax("unexpected end of template, expected one of: \(terminators.sorted().joined(separator: ", "))", token.location)
                }
                return (nodes, nil)
            case let .text(s):
                _ = advance()
                nodes.append(.text(s))
            case .variableBegin:
                _ = advance()
                let expr = try parseTuple()
                guard current.kind == .variableEnd else { throw .syntax("expected '}}', got \(describe(current))", current.location) }
                _ = advance()
                nodes.append(.output(expr, token.location))
            case .blockBegin:
                _ = advance()
                guard case let .name(keyword) = current.kind else {
                    throw .syntax("expected a statement name, got \(describe(current))", current.location)
                }
                if terminators.contains(keyword) {
                    _ = advance()
                    return (nodes, keyword)
                }
                nodes.append(try parseStatement())
            default:
                throw .syntax("unexpected \(describe(token))", token.location)
            }
        }
    }

    private mutating func parseStatement() throws(TemplateError) -> Node {
        let location = current.location
        let keyword = try expectName()
        switch keyword {
        case "if": return try parseIf()
        case "for": return try parseFor(location)
        case "set": return try parseSet(location)
        case "macro": return try parseMacro(location)
        case "call": return try parseCall(location)
        case "generation":
            try expectBlockEnd()
            let (body, _) = try parseNodes(until: ["endgeneration"])
            try expectBlockEnd()
            return .block(body)
        case "break", "continue":
            guard loopDepth > 0 else { throw .syntax("'\(keyword)' outside of a loop", location) }
            try expectBlockEnd()
            return keyword == "break" ? .breakLoop : .continueLoop
        case "elif", "else", "endif", "endfor", "endset", "endmacro", "endcall", "endgeneration", "endraw":
            throw .syntax("unexpected '\(keyword)'", location)
        default:
            throw .unsupported(construct: "statement '\(keyword)'", at: location)
        }
    }

    private mutating func parseIf() throws(TemplateError) -> Node {
        var branches: [(Expr, [Node])] = []
        var condition = try parseTuple()
        while true {
            try expectBlockEnd()
            let (body, end) = try parseNodes(until: ["elif", "else", "endif"])
            branches.append((condition, body))
            switch end {
            case "elif":
                condition = try parseTuple()
            case "else":
                try expectBlockEnd()
                let (otherwise, _) = try parseNodes(until: ["endif"])
                try expectBlockEnd()
                return .conditional(branches, otherwise: otherwise)
            default:
                try expectBlockEnd()
                return .conditional(branches, otherwise: [])
            }
        }
    }

    private mutating func parseTargets() throws(TemplateError) -> [String] {
        var names: [String] = []
        let parenthesized = isOp("(")
        if parenthesized { _ = advance() }
        repeat {
            if isOp(",") { _ = advance() }
            if parenthesized && isOp(")") { break }
            names.append(try expectName())
        } while isOp(",")
        if parenthesized { try expectOp(")") }
        return names
    }

    private mutating func parseFor(_ location: SourceLocation) throws(TemplateError) -> Node {
        let targets = try parseTargets()
        try expectKeyword("in")
        let iterable = try parseTuple(allowConditional: false)
        var filter: Expr?
        if isName("if") {
            _ = advance()
            filter = try parseExpression()
        }
        if isName("recursive") { throw .unsupported(construct: "recursive for loop", at: current.location) }
        try expectBlockEnd()
        loopDepth += 1
        let (body, end) = try parseNodes(until: ["else", "endfor"])
        loopDepth -= 1
        var otherwise: [Node] = []
        if end == "else" {
            try expectBlockEnd()
            (otherwise, _) = try parseNodes(until: ["endfor"])
        }
        try expectBlockEnd()
        return .loop(targets: targets, iterable: iterable, filter: filter, body: body, otherwise: otherwise, location)
    }

    private mutating func parseSet(_ location: SourceLocation) throws(TemplateError) -> Node {
        let target: AssignTarget
        if case let .name(first) = current.kind, next.kind == .op(".") {
            _ = advance()
            _ = advance()
            target = .attribute(first, try expectName())
        } else {
            target = .names(try parseTargets())
        }
        if isOp("=") {
            _ = advance()
            let value = try parseTuple()
            try expectBlockEnd()
            return .assign(target, value, location)
        }
        guard case let .names(names) = target, names.count == 1 else {
            throw .syntax("expected '='", current.location)
        }
        if isOp("|") { throw .unsupported(construct: "filtered set block", at: current.location) }
        try expectBlockEnd()
        let (body, _) = try parseNodes(until: ["endset"])
        try expectBlockEnd()
        return .assignBlock(names[0], body)
    }

    private mutating func parseParameters() throws(TemplateError) -> [Parameter] {
        try expectOp("(")
        var parameters: [Parameter] = []
        while !isOp(")") {
            if !parameters.isEmpty { try expectOp(",") }
            if isOp(")") { break }
            let name = try expectName()
            var defaultValue: Expr?
            if isOp("=") {
                _ = advance()
                defaultValue = try parseExpression()
            }
            parameters.append(Parameter(name: name, defaultValue: defaultValue))
        }
        _ = advance()
        return parameters
    }

    private mutating func parseMacro(_ location: SourceLocation) throws(TemplateError) -> Node {
        let name = try expectName()
        let parameters = try parseParameters()
        try expectBlockEnd()
        let savedDepth = loopDepth
        loopDepth = 0  // a loop around the definition is not a loop inside the macro
        let (body, _) = try parseNodes(until: ["endmacro"])
        loopDepth = savedDepth
        if case .name = current.kind { _ = advance() }  // {% endmacro name %}
        try expectBlockEnd()
        definedMacros.insert(name)
        return .macro(MacroDefinition(name: name, parameters: parameters, body: body, location: location))
    }

    private mutating func parseCall(_ location: SourceLocation) throws(TemplateError) -> Node {
        let parameters = isOp("(") ? try parseParameters() : []
        let call = try parseExpression()
        guard case .call = call else { throw .syntax("expected a macro call", location) }
        try expectBlockEnd()
        let (body, _) = try parseNodes(until: ["endcall"])
        try expectBlockEnd()
        return .callBlock(call, callerParameters: parameters, body: body, location)
    }

    // MARK: - Expressions

    /// An expression, or several separated by commas (a tuple, which we represent as a list).
    private mutating func parseTuple(allowConditional: Bool = true) throws(TemplateError) -> Expr {
        let first = allowConditional ? try parseExpression() : try parseOr()
        guard isOp(",") else { return first }
        var items = [first]
        while isOp(",") {
            _ = advance()
            if [.variableEnd, .blockEnd].contains(current.kind) || isOp(")") || isOp("=") { break }
            items.append(allowConditional ? try parseExpression() : try parseOr())
        }
        return .list(items)
    }

    mutating func parseExpression() throws(TemplateError) -> Expr {
        try descend()
        defer { depth -= 1 }
        let value = try parseOr()
        guard isName("if") else { return value }
        _ = advance()
        let condition = try parseOr()
        var otherwise: Expr?
        if isName("else") {
            _ = advance()
            otherwise = try parseExpression()
        }
        return .conditional(condition: condition, then: value, otherwise: otherwise)
    }

    /// One left-associative precedence level: `operand (operator operand)*`, folded to the left.
    /// `fold` looks at the current token: nil ends the level, otherwise the node that joins the
    /// operands so far, the next one and the operator's location. Each operand folded in deepens
    /// the tree by one level against `maxNesting`.
    private mutating func parseLeftFold(
        _ operand: (inout Parser) throws(TemplateError) -> Expr,
        _ fold: (Parser) -> ((Expr, Expr, SourceLocation) -> Expr)?
    ) throws(TemplateError) -> Expr {
        var left = try operand(&self)
        var folds = 0
        defer { depth -= folds }
        while let join = fold(self) {
            try descend()
            folds += 1
            let location = current.location
            _ = advance()
            left = join(left, try operand(&self), location)
        }
        return left
    }

    private mutating func parseOr() throws(TemplateError) -> Expr {
        try parseLeftFold({ (p: inout Parser) throws(TemplateError) in try p.parseAnd() }) { p in
            p.isName("or") ? { l, r, _ in .or(l, r) } : nil
        }
    }

    private mutating func parseAnd() throws(TemplateError) -> Expr {
        try parseLeftFold({ (p: inout Parser) throws(TemplateError) in try p.parseNot() }) { p in
            p.isName("and") ? { l, r, _ in .and(l, r) } : nil
        }
    }

    private mutating func parseNot() throws(TemplateError) -> Expr {
        if isName("not") {
            _ = advance()
            try descend()
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parseCompare()
    }

    private mutating func parseCompare() throws(TemplateError) -> Expr {
        let location = current.location
        let left = try parseMath1()
        var ops: [(CompareOp, Expr)] = []
        while true {
            if case let .op(o) = current.kind, let op = CompareOp(rawValue: o), op != .isIn, op != .notIn {
                _ = advance()
                ops.append((op, try parseMath1()))
            } else if isName("in") {
                _ = advance()
                ops.append((.isIn, try parseMath1()))
            } else if isName("not"), next.kind == .name("in") {
                _ = advance()
                _ = advance()
                ops.append((.notIn, try parseMath1()))
            } else {
                break
            }
        }
        return ops.isEmpty ? left : .compare(left, ops, location)
    }

    /// The node joining two operands with `op`.
    private static func binary(_ op: BinaryOp) -> (Expr, Expr, SourceLocation) -> Expr {
        { l, r, location in .binary(op, l, r, location) }
    }

    private mutating func parseMath1() throws(TemplateError) -> Expr {
        try parseLeftFold({ (p: inout Parser) throws(TemplateError) in try p.parseConcat() }) { p in
            p.isOp("+") ? Self.binary(.add) : p.isOp("-") ? Self.binary(.sub) : nil
        }
    }

    private mutating func parseConcat() throws(TemplateError) -> Expr {
        try parseLeftFold({ (p: inout Parser) throws(TemplateError) in try p.parseMath2() }) { p in
            p.isOp("~") ? Self.binary(.concat) : nil
        }
    }

    private mutating func parseMath2() throws(TemplateError) -> Expr {
        try parseLeftFold({ (p: inout Parser) throws(TemplateError) in try p.parsePow() }) { p in
            p.isOp("*") ? Self.binary(.mul) : p.isOp("/") ? Self.binary(.div) : p.isOp("//") ? Self.binary(.floorDiv) : p.isOp("%") ? Self.binary(.mod) : nil
        }
    }

    private mutating func parsePow() throws(TemplateError) -> Expr {
        try parseLeftFold({ (p: inout Parser) throws(TemplateError) in try p.parseUnary() }) { p in
            p.isOp("**") ? Self.binary(.pow) : nil
        }
    }

    private mutating func parseUnary(withFilter: Bool = true) throws(TemplateError) -> Expr {
        try descend()
        defer { depth -= 1 }
        let location = current.location
        var node: Expr
        if isOp("-") {
            _ = advance()
            node = .negate(try parseUnary(withFilter: false), location)
        } else if isOp("+") {
            _ = advance()
            node = .plus(try parseUnary(withFilter: false), location)
        } else {
            node = try parsePrimary()
        }
        node = try parsePostfix(node)
        if withFilter { node = try parseFilterExpr(node) }
        return node
    }

    private mutating func parsePrimary() throws(TemplateError) -> Expr {
        let token = advance()
        switch token.kind {
        case let .name(n):
            switch n {
            case "true", "True": return .literal(.bool(true))
            case "false", "False": return .literal(.bool(false))
            case "none", "None": return .literal(.none)
            default: return .name(n, token.location)
            }
        case var .string(s):
            // Adjacent string literals concatenate, as in Python.
            while case let .string(more) = current.kind {
                s += more
                _ = advance()
            }
            return .literal(.string(s))
        case let .int(i): return .literal(.int(i))
        case let .float(d): return .literal(.double(d))
        case .op("("):
            if isOp(")") {
                _ = advance()
                return .list([])
            }
            let first = try parseExpression()
            if isOp(")") {
                _ = advance()
                return first
            }
            var items = [first]
            while isOp(",") {
                _ = advance()
                if isOp(")") { break }
                items.append(try parseExpression())
            }
            try expectOp(")")
            return .list(items)
        case .op("["):
            var items: [Expr] = []
            while !isOp("]") {
                if !items.isEmpty { try expectOp(",") }
                if isOp("]") { break }
                items.append(try parseExpression())
            }
            _ = advance()
            return .list(items)
        case .op("{"):
            var pairs: [(Expr, Expr)] = []
            while !isOp("}") {
                if !pairs.isEmpty { try expectOp(",") }
                if isOp("}") { break }
                let key = try parseExpression()
                try expectOp(":")
                pairs.append((key, try parseExpression()))
            }
            _ = advance()
            return .dict(pairs, token.location)
        default:
            throw .syntax("unexpected \(describe(token))", token.location)
        }
    }

    private mutating func parsePostfix(_ start: Expr) throws(TemplateError) -> Expr {
        var node = start
        var folds = 0
        defer { depth -= folds }
        while true {
            try descend()
            folds += 1
            let location = current.location
            if isOp(".") {
                _ = advance()
                switch current.kind {
                case let .name(n):
                    _ = advance()
                    node = .attribute(node, n, location)
                case let .int(i):
                    _ = advance()
                    node = .item(node, .literal(.int(i)), location)
                default:
                    throw .syntax("expected an attribute name after '.'", current.location)
                }
            } else if isOp("[") {
                _ = advance()
                node = try parseSubscript(node, location)
            } else if isOp("(") {
                node = try parseCallExpr(node)
            } else {
                return node
            }
        }
    }

    private mutating func parseSubscript(_ target: Expr, _ location: SourceLocation) throws(TemplateError) -> Expr {
        var parts: [Expr?] = [nil]
        var isSlice = false
        while !isOp("]") {
            if isOp(":") {
                isSlice = true
                _ = advance()
                parts.append(nil)
                continue
            }
            guard parts[parts.count - 1] == nil else { throw .syntax("expected ']'", current.location) }
            parts[parts.count - 1] = try parseExpression()
        }
        _ = advance()
        if !isSlice {
            guard let key = parts[0] else { throw .syntax("empty subscript", location) }
            return .item(target, key, location)
        }
        guard parts.count <= 3 else { throw .syntax("too many ':' in slice", location) }
        while parts.count < 3 { parts.append(nil) }
        return .slice(target, parts[0], parts[1], parts[2], location)
    }

    private mutating func parseArguments() throws(TemplateError) -> Arguments {
        try expectOp("(")
        var arguments = Arguments()
        while !isOp(")") {
            if !arguments.positional.isEmpty || !arguments.keyword.isEmpty { try expectOp(",") }
            if isOp(")") { break }
            if isOp("*") || isOp("**") { throw .unsupported(construct: "*args/**kwargs in a call", at: current.location) }
            if case let .name(n) = current.kind, next.kind == .op("=") {
                _ = advance()
                _ = advance()
                arguments.keyword.append((n, try parseExpression()))
            } else {
                guard arguments.keyword.isEmpty else { throw .syntax("positional argument after keyword argument", current.location) }
                arguments.positional.append(try parseExpression())
            }
        }
        _ = advance()
        return arguments
    }

    private mutating func parseCallExpr(_ callee: Expr) throws(TemplateError) -> Expr {
        let location = current.location
        switch callee {
        case let .attribute(_, method, methodLocation):
            guard supportedMethodNames.contains(method) else {
                throw .unsupported(construct: "method '\(method)'", at: methodLocation)
            }
        case let .name(name, nameLocation):
            calledNames.append((name, nameLocation))
        default:
            break
        }
        return .call(callee, try parseArguments(), location)
    }

    private mutating func parseFilterExpr(_ start: Expr) throws(TemplateError) -> Expr {
        var node = start
        var folds = 0
        defer { depth -= folds }
        while true {
            try descend()
            folds += 1
            if isOp("|") {
                _ = advance()
                let location = current.location
                let name = try expectName()
                guard supportedFilterNames.contains(name) else { throw .unsupported(construct: "filter '\(name)'", at: location) }
                let arguments = isOp("(") ? try parseArguments() : Arguments()
                node = .filter(node, name, arguments, location)
            } else if isName("is") {
                _ = advance()
                var negated = false
                if isName("not") {
                    _ = advance()
                    negated = true
                }
                let location = current.location
                let name = try expectName()
                guard supportedTestNames.contains(name) else { throw .unsupported(construct: "test '\(name)'", at: location) }
                var arguments = Arguments()
                if isOp("(") {
                    arguments = try parseArguments()
                } else if startsPrimary(current), !isName("else"), !isName("or"), !isName("and") {
                    if isName("is") { throw .syntax("cannot chain multiple tests with 'is'", current.location) }
                    arguments.positional = [try parsePostfix(try parsePrimary())]
                }
                node = .test(node, name, arguments, negated: negated, location)
            } else if isOp("(") {
                node = try parseCallExpr(node)
            } else {
                return node
            }
        }
    }

    private func startsPrimary(_ t: Token) -> Bool {
        switch t.kind {
        case .name, .string, .int, .float: return true
        case .op("("), .op("["), .op("{"): return true
        default: return false
        }
    }
}
