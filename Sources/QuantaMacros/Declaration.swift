// What the macros need to know of a declaration, read from its source text by
// DeclarationScanner.

/// An attribute written on a declaration: `@Name` or `@Name(arguments)`.
struct Attribute {
    var name: String
    /// The tokens of the whole attribute, for diagnostics.
    var first: Token
    var last: Token
    /// Nil when written without parentheses.
    var arguments: [Argument]?
}

/// One argument of an attribute or an enum case: `label: value` or `value`.
struct Argument {
    var label: String?
    /// The value's source text.
    var value: String
    /// The value's tokens.
    var first: Token
    var last: Token
}

/// A stored property of a struct.
struct StoredProperty {
    /// The name as written (backticks kept), for Swift code.
    var name: String
    /// The name without backticks, for generated content and schemas.
    var key: String
    /// The declared type's text; nil when the property has no annotation.
    var type: String?
    var isLet: Bool
    /// The initial value's source text, if any.
    var initializer: String?
    var attributes: [Attribute]
    var nameToken: Token
}

/// One case of an enum, with its associated values if any.
struct EnumCase {
    var name: String
    var key: String
    /// Nil for a case without associated values.
    var values: [CaseValue]?
    var nameToken: Token
}

/// One associated value of an enum case.
struct CaseValue {
    /// The label, or nil when unlabeled.
    var label: String?
    var type: String
}

/// A type declaration as the scanner read it.
struct TypeDeclaration {
    enum Kind: String {
        case `struct`, `enum`, `class`, `actor`, `protocol`, `extension`
    }

    var kind: Kind
    var name: String
    var nameToken: Token
    var attributes: [Attribute]
    /// `public`, `package`, `open`, ...; nil for the default (internal).
    var accessLevel: String?
    /// The generic parameter clause, if any, for the diagnostic that refuses it.
    var genericClause: Token?
    var properties: [StoredProperty] = []
    var cases: [EnumCase] = []
}

/// A diagnostic raised while reading or expanding, at source byte offsets relative to the
/// declaration or attribute text it came from.
struct MacroError: Error {
    var message: String
    var start: Int
    var end: Int
    /// Whether the offsets are in the attribute's text rather than the declaration's.
    var inAttribute = false

    init(_ message: String, at token: Token) {
        self.message = message
        start = token.start
        end = token.end
    }

    init(_ message: String, from first: Token, to last: Token) {
        self.message = message
        start = first.start
        end = last.end
    }

    init(_ message: String, offset: Int) {
        self.message = message
        start = offset
        end = offset
    }
}
