import Foundation

// Scalars: each reads one JSON kind and is its own partially generated form (a partial string is
// a string; a number is only emitted once it parses). In prompts they read as their plain value
// (`42`, `true`), not JSON-quoted.

extension Bool: Generable {
    /// `{"type":"boolean"}`.
    public static var generationSchema: GenerationSchema { GenerationSchema(primitive: "Bool", .boolean) }

    /// Reads `true` or `false`.
    public init(_ content: GeneratedContent) throws {
        guard case .bool(let value) = content.kind else { throw ContentConversionError.typeMismatch(expected: "a boolean", in: content) }
        self = value
    }

    /// `.bool(self)`.
    public var generatedContent: GeneratedContent { GeneratedContent(kind: .bool(self)) }

    /// `true` or `false`.
    public var promptRepresentation: Prompt { return Prompt(description) }

    /// `true` or `false`.
    public var instructionsRepresentation: Instructions { return Instructions(description) }
}

extension String: Generable {
    /// `{"type":"string"}`.
    public static var generationSchema: GenerationSchema { GenerationSchema(primitive: "String", .string([])) }

    /// Reads a string.
    public init(_ content: GeneratedContent) throws {
        guard case .string(let value) = content.kind else { throw ContentConversionError.typeMismatch(expected: "a string", in: content) }
        self = value
    }

    /// `.string(self)`.
    public var generatedContent: GeneratedContent { GeneratedContent(kind: .string(self)) }
}

extension Int: Generable {
    /// `{"type":"integer"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(primitive: "Int", .integer(minimum: nil, maximum: nil))
    }

    /// Reads a number without a fraction that fits in `Int`.
    public init(_ content: GeneratedContent) throws {
        guard case .number(let value) = content.kind, let integer = Int(exactly: value) else {
            throw ContentConversionError.typeMismatch(expected: "an integer", in: content)
        }
        self = integer
    }

    /// `.number(Double(self))`.
    public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(Double(self))) }

    /// The decimal digits.
    public var promptRepresentation: Prompt { return Prompt(description) }

    /// The decimal digits.
    public var instructionsRepresentation: Instructions { return Instructions(description) }
}

extension Float: Generable {
    /// `{"type":"number"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(primitive: "Float", .number(minimum: nil, maximum: nil))
    }

    /// Reads a number (rounded to `Float`).
    public init(_ content: GeneratedContent) throws {
        guard case .number(let value) = content.kind else { throw ContentConversionError.typeMismatch(expected: "a number", in: content) }
        self = Float(value)
    }

    /// `.number(Double(self))`.
    public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(Double(self))) }

    /// Swift's shortest form of the value.
    public var promptRepresentation: Prompt { return Prompt(description) }

    /// Swift's shortest form of the value.
    public var instructionsRepresentation: Instructions { return Instructions(description) }
}

extension Double: Generable {
    /// `{"type":"number"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(primitive: "Double", .number(minimum: nil, maximum: nil))
    }

    /// Reads a number.
    public init(_ content: GeneratedContent) throws {
        guard case .number(let value) = content.kind else { throw ContentConversionError.typeMismatch(expected: "a number", in: content) }
        self = value
    }

    /// `.number(self)`.
    public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(self)) }

    /// Swift's shortest form of the value.
    public var promptRepresentation: Prompt { return Prompt(description) }

    /// Swift's shortest form of the value.
    public var instructionsRepresentation: Instructions { return Instructions(description) }
}

extension Decimal: Generable {
    /// `{"type":"number"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(primitive: "Decimal", .number(minimum: nil, maximum: nil))
    }

    /// Reads a number. Content holds numbers as `Double`, so digits beyond its precision are
    /// lost; the decimal is rebuilt from the shortest text of that `Double` so `0.1` reads `0.1`.
    public init(_ content: GeneratedContent) throws {
        guard case .number(let value) = content.kind, let decimal = Decimal(string: JSONWriter.number(value)) else {
            throw ContentConversionError.typeMismatch(expected: "a number", in: content)
        }
        self = decimal
    }

    /// `.number` of the nearest `Double`.
    public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(nearestDouble)) }

    /// The decimal digits.
    public var promptRepresentation: Prompt { return Prompt(description) }

    /// The decimal digits.
    public var instructionsRepresentation: Instructions { return Instructions(description) }
}

extension Never: Generable {
    /// A schema with no possible value; lowering it throws.
    public static var generationSchema: GenerationSchema { GenerationSchema(primitive: "Never", .anyOf([])) }

    /// Always throws: there is no `Never` value.
    public init(_ content: GeneratedContent) throws {
        throw ContentConversionError.typeMismatch(expected: "nothing (Never has no values)", in: content)
    }

    /// Unreachable: there is no `Never` value.
    public var generatedContent: GeneratedContent {
        switch self {}
    }
}

extension GeneratedContent: Generable {
    /// Any JSON value. Constrained decoding cannot express free-form objects, so lowering this
    /// schema throws; it still encodes (as `{}`) and can be shown to the model.
    public static var generationSchema: GenerationSchema { GenerationSchema(primitive: "GeneratedContent", .anyJSON) }

    /// The content itself.
    public init(_ content: GeneratedContent) throws {
        self = content
    }

    /// The content itself.
    public var generatedContent: GeneratedContent { self }
}
