// Reads a type declaration (or one property) from tokens: its attributes and modifiers, its
// name, and at the top level of its body the stored properties and enum cases. Everything
// else in the body (methods, computed properties, nested types) is skipped by matching
// brackets. Strict where it matters: what it cannot read it reports instead of guessing.

/// Words that may stand before `var`, `let`, `case`, `struct`, ... as modifiers.
private let modifiers: Set<String> = [
    "public", "private", "fileprivate", "internal", "package", "open", "static", "class", "final", "lazy", "weak",
    "unowned", "nonisolated", "mutating", "nonmutating", "override", "required", "convenience", "dynamic", "optional",
    "indirect", "consuming", "borrowing", "isolated", "distributed", "prefix", "postfix", "infix", "__consuming",
]

private let accessLevels: Set<String> = ["public", "private", "fileprivate", "internal", "package", "open"]

/// Words that start a declaration in a type's body.
private let declarationKeywords: Set<String> = [
    "var", "let", "func", "init", "deinit", "subscript", "case", "struct", "enum", "class", "actor", "protocol",
    "typealias", "associatedtype", "extension", "import", "operator", "precedencegroup", "macro",
]

struct DeclarationScanner {
    let tokenizer: SwiftTokenizer
    let tokens: [Token]
    private var i = 0

    init(source: String) throws(MacroError) {
        tokenizer = SwiftTokenizer(source)
        do {
            tokens = try tokenizer.tokenize()
        } catch {
            throw MacroError(error.message, offset: error.offset)
        }
    }

    private func text(_ index: Int) -> String { index < tokens.count ? tokenizer.text(tokens[index]) : "" }
    private func isPunctuation(_ index: Int, _ p: String) -> Bool {
        index < tokens.count && tokens[index].kind == .punctuation && tokenizer.text(tokens[index]) == p
    }
    private var endToken: Token {
        tokens.last ?? Token(kind: .punctuation, start: 0, end: 0, startsLine: true)
    }

    // MARK: - Type declarations

    /// The type declared by the source.
    mutating func scanType() throws(MacroError) -> TypeDeclaration {
        i = 0
        let attributes = try scanAttributes()
        let modifierWords = scanModifiers()
        guard i < tokens.count, tokens[i].kind == .identifier, let kind = TypeDeclaration.Kind(rawValue: text(i)) else {
            throw MacroError("expected a struct or enum declaration", at: i < tokens.count ? tokens[i] : endToken)
        }
        i += 1
        guard i < tokens.count, tokens[i].kind == .identifier else {
            throw MacroError("expected the type's name", at: i < tokens.count ? tokens[i] : endToken)
        }
        var declaration = TypeDeclaration(
            kind: kind, name: text(i), nameToken: tokens[i], attributes: attributes,
            accessLevel: modifierWords.first(where: accessLevels.contains))
        i += 1
        // Skip the header (generic clause, inheritance, where clause) up to the body.
        while i < tokens.count && !isPunctuation(i, "{") {
            if isPunctuation(i, "<") && declaration.genericClause == nil { declaration.genericClause = tokens[i] }
            if isPunctuation(i, "(") || isPunctuation(i, "[") {
                i = try matchingClose(from: i) + 1
            } else {
                i += 1
            }
        }
        guard i < tokens.count else { throw MacroError("expected the type's body", at: endToken) }
        let bodyEnd = try matchingClose(from: i)
        i += 1
        try scanBody(until: bodyEnd, into: &declaration)
        return declaration
    }

    /// The members at the top level of the body `i..<end`.
    private mutating func scanBody(until end: Int, into declaration: inout TypeDeclaration) throws(MacroError) {
        while i < end {
            if isPunctuation(i, ";") {
                i += 1
                continue
            }
            if isPunctuation(i, "#") {
                throw MacroError("'#if' and other directives are not supported in a '@Generable' type's body", at: tokens[i])
            }
            let attributes = try scanAttributes()
            let words = scanModifiers()
            guard i < end else { break }
            let keyword = tokens[i].kind == .identifier ? text(i) : ""
            let isStatic = words.contains("static") || words.contains("class")
            if (keyword == "var" || keyword == "let") && !isStatic {
                i += 1
                declaration.properties += try scanBindings(isLet: keyword == "let", attributes: attributes, until: end)
            } else if keyword == "case" && declaration.kind == .enum {
                i += 1
                declaration.cases += try scanCases(until: end)
            } else {
                if !declarationKeywords.contains(keyword) && attributes.isEmpty && words.isEmpty {
                    throw MacroError("expected a declaration", at: tokens[i])
                }
                i += 1
                try skipDeclaration(until: end)
            }
        }
    }

    /// Skips to the next token at this level that begins a line and could start a
    /// declaration, or past a `;`.
    private mutating func skipDeclaration(until end: Int) throws(MacroError) {
        while i < end {
            if isPunctuation(i, ";") { return }
            if tokens[i].startsLine && startsDeclaration(i) { return }
            if isPunctuation(i, "(") || isPunctuation(i, "[") || isPunctuation(i, "{") {
                i = try matchingClose(from: i) + 1
            } else {
                i += 1
            }
        }
    }

    private func startsDeclaration(_ index: Int) -> Bool {
        if isPunctuation(index, "@") || isPunctuation(index, "#") { return true }
        guard tokens[index].kind == .identifier else { return false }
        let word = text(index)
        return declarationKeywords.contains(word) || modifiers.contains(word)
    }

    // MARK: - Properties

    /// `name: Type = value, name2: Type ...` after `var` or `let`.
    private mutating func scanBindings(isLet: Bool, attributes: [Attribute], until end: Int) throws(MacroError) -> [StoredProperty] {
        var properties: [StoredProperty] = []
        while true {
            guard i < end, tokens[i].kind == .identifier else {
                throw MacroError("expected a property name (tuple patterns are not supported)", at: i < end ? tokens[i] : endToken)
            }
            let nameToken = tokens[i]
            let name = text(i)
            i += 1
            var type: String?
            if isPunctuation(i, ":") {
                i += 1
                type = try scanType(until: end)
            }
            var initializer: String?
            var isComputed = false
            if i < end && tokens[i].kind == .symbol && text(i) == "=" {
                i += 1
                let first = i
                try skipExpression(until: end)
                guard i > first else { throw MacroError("expected an initial value", at: tokens[first - 1]) }
                initializer = tokenizer.text(from: tokens[first], through: tokens[i - 1])
            }
            if isPunctuation(i, "{") && (!tokens[i].startsLine || type != nil && initializer == nil) {
                // An accessor block: observers keep the property stored; anything else is computed.
                let close = try matchingClose(from: i)
                let first = i + 1 < close ? text(i + 1) : ""
                isComputed = !(first == "willSet" || first == "didSet")
                i = close + 1
            }
            if !isComputed {
                properties.append(StoredProperty(
                    name: name, key: name.filter { $0 != "`" }, type: type, isLet: isLet, initializer: initializer,
                    attributes: attributes, nameToken: nameToken))
            }
            if isPunctuation(i, ",") {
                i += 1
                continue
            }
            return properties
        }
    }

    /// A type annotation: tokens up to `=`, `{`, `,` or a new declaration, outside brackets.
    private mutating func scanType(until end: Int) throws(MacroError) -> String {
        let first = i
        var angles = 0
        while i < end {
            if angles == 0 && i > first {
                if isPunctuation(i, "{") || isPunctuation(i, ",") || isPunctuation(i, ";") { break }
                if tokens[i].kind == .symbol && text(i) == "=" { break }
                if tokens[i].startsLine && !isPunctuation(i, ".") && !isPunctuation(i, "?") { break }
            }
            if isPunctuation(i, "<") {
                angles += 1
                i += 1
            } else if isPunctuation(i, ">") {
                angles = max(0, angles - 1)
                i += 1
            } else if isPunctuation(i, "(") || isPunctuation(i, "[") {
                i = try matchingClose(from: i) + 1
            } else if isPunctuation(i, "{") {
                throw MacroError("expected a type", at: tokens[i])
            } else {
                i += 1
            }
        }
        guard i > first else { throw MacroError("expected a type", at: first < tokens.count ? tokens[first] : endToken) }
        return tokenizer.text(from: tokens[first], through: tokens[i - 1])
    }

    /// An initial value: up to a `,` at this level or a line that starts a new declaration.
    private mutating func skipExpression(until end: Int) throws(MacroError) {
        let first = i
        while i < end {
            if i > first && (isPunctuation(i, ",") || isPunctuation(i, ";")) { return }
            if i > first && tokens[i].startsLine && startsDeclaration(i) { return }
            if isPunctuation(i, "(") || isPunctuation(i, "[") || isPunctuation(i, "{") {
                i = try matchingClose(from: i) + 1
            } else {
                i += 1
            }
        }
    }

    // MARK: - Enum cases

    /// `a, b(x: Int), c = "raw"` after `case`.
    private mutating func scanCases(until end: Int) throws(MacroError) -> [EnumCase] {
        var cases: [EnumCase] = []
        while true {
            guard i < end, tokens[i].kind == .identifier else { throw MacroError("expected a case name", at: i < end ? tokens[i] : endToken) }
            let nameToken = tokens[i]
            let name = text(i)
            i += 1
            var values: [CaseValue]?
            if isPunctuation(i, "(") {
                let close = try matchingClose(from: i)
                values = try splitArguments(open: i, close: close).map { argument throws(MacroError) in
                    let type = argument.value.split(separator: "=", maxSplits: 1).first.map { String($0) } ?? argument.value
                    let trimmed = type.trimmingSpaces
                    guard !trimmed.isEmpty else { throw MacroError("expected an associated value's type", from: argument.first, to: argument.last) }
                    return CaseValue(label: argument.label, type: trimmed)
                }
                i = close + 1
            }
            if i < end && tokens[i].kind == .symbol && text(i) == "=" {
                i += 1
                try skipExpression(until: end)
            }
            cases.append(EnumCase(name: name, key: name.filter { $0 != "`" }, values: values, nameToken: nameToken))
            if isPunctuation(i, ",") {
                i += 1
                continue
            }
            return cases
        }
    }

    // MARK: - Attributes and modifiers

    /// `@Name`, `@Name.Member`, `@Name(arguments)` ... at `i`.
    private mutating func scanAttributes() throws(MacroError) -> [Attribute] {
        var attributes: [Attribute] = []
        while isPunctuation(i, "@") {
            let first = tokens[i]
            i += 1
            guard i < tokens.count, tokens[i].kind == .identifier else { throw MacroError("expected an attribute name", at: first) }
            var name = text(i)
            i += 1
            while isPunctuation(i, "."), i + 1 < tokens.count, tokens[i + 1].kind == .identifier {
                name += "." + text(i + 1)
                i += 2
            }
            var arguments: [Argument]?
            var last = tokens[i - 1]
            if isPunctuation(i, "("), tokens[i].start == last.end {
                let close = try matchingClose(from: i)
                arguments = try splitArguments(open: i, close: close)
                last = tokens[close]
                i = close + 1
            }
            attributes.append(Attribute(name: name, first: first, last: last, arguments: arguments))
        }
        return attributes
    }

    private mutating func scanModifiers() -> [String] {
        var words: [String] = []
        while i < tokens.count, tokens[i].kind == .identifier, modifiers.contains(text(i)) {
            // `class` is a modifier only before another declaration keyword (`class func`).
            if text(i) == "class", i + 1 < tokens.count, !(declarationKeywords.contains(text(i + 1)) || modifiers.contains(text(i + 1))) {
                break
            }
            words.append(text(i))
            i += 1
            if isPunctuation(i, "(") {
                // private(set), nonisolated(unsafe), unowned(safe)
                if let close = try? matchingClose(from: i) { i = close + 1 }
            }
        }
        return words
    }

    /// The arguments between the parentheses at `open` and `close`, split at top-level commas.
    func splitArguments(open: Int, close: Int) throws(MacroError) -> [Argument] {
        var arguments: [Argument] = []
        var j = open + 1
        while j < close {
            var label: String?
            if tokens[j].kind == .identifier, j + 1 < close, isPunctuation(j + 1, ":") {
                label = text(j)
                j += 2
            } else if tokens[j].kind == .identifier, j + 2 < close, tokens[j + 1].kind == .identifier, isPunctuation(j + 2, ":") {
                // `_ label: Type` in an associated value list.
                label = text(j + 1) == "_" ? nil : text(j + 1)
                j += 3
            }
            let first = j
            while j < close && !isPunctuation(j, ",") {
                if isPunctuation(j, "(") || isPunctuation(j, "[") || isPunctuation(j, "{") {
                    j = try matchingClose(from: j) + 1
                } else {
                    j += 1
                }
            }
            guard j > first else { throw MacroError("expected an argument", at: tokens[min(j, close)]) }
            arguments.append(Argument(
                label: label, value: tokenizer.text(from: tokens[first], through: tokens[j - 1]), first: tokens[first], last: tokens[j - 1]))
            j += 1
        }
        return arguments
    }

    // MARK: - Brackets

    /// The index of the bracket closing the one at `open`; every `(`, `[` and `{` between
    /// must be closed by its own kind.
    func matchingClose(from open: Int) throws(MacroError) -> Int {
        var stack: [UInt8] = []
        var j = open
        while j < tokens.count {
            if tokens[j].kind == .punctuation {
                let c = tokenizer.bytes[tokens[j].start]
                switch c {
                case 0x28: stack.append(0x29)
                case 0x5B: stack.append(0x5D)
                case 0x7B: stack.append(0x7D)
                case 0x29, 0x5D, 0x7D:
                    guard stack.last == c else { throw MacroError("unbalanced '\(Character(Unicode.Scalar(c)))'", at: tokens[j]) }
                    stack.removeLast()
                    if stack.isEmpty { return j }
                default: break
                }
            }
            j += 1
        }
        throw MacroError("missing closing bracket", at: tokens[open])
    }

    // MARK: - Single declarations

    /// The attributes the source starts with (the text of one attribute is one of them).
    mutating func scanLeadingAttributes() throws(MacroError) -> [Attribute] {
        i = 0
        return try scanAttributes()
    }

    /// A lone property declaration (what an accessor or peer macro is attached to), and
    /// whether it is `static`.
    mutating func scanProperty() throws(MacroError) -> (property: StoredProperty, isStatic: Bool) {
        i = 0
        let attributes = try scanAttributes()
        let words = scanModifiers()
        guard i < tokens.count, tokens[i].kind == .identifier, text(i) == "var" || text(i) == "let" else {
            throw MacroError("expected a property declaration", at: i < tokens.count ? tokens[i] : endToken)
        }
        let keyword = tokens[i]
        i += 1
        let properties = try scanBindings(isLet: tokenizer.text(keyword) == "let", attributes: attributes, until: tokens.count)
        guard properties.count == 1, let property = properties.first else {
            throw MacroError("declare one property per declaration", at: keyword)
        }
        return (property, words.contains("static") || words.contains("class"))
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line breaks.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
