// What `@Generable` writes. For a struct:
//   member role:    `static var generationSchema` (the stored properties in declaration order,
//                   with their `@Guide` descriptions and guides) and `struct PartiallyGenerated`
//                   (every property optional and partial in turn, plus `id`; a property that
//                   cannot be read yet, such as an enum cut mid-name, is nil);
//   extension role: the `Generable` conformance with `init(_ content:)` and `generatedContent`.
// Keeping `init(_:)` in the extension leaves the compiler's own memberwise initializer in place.
// For an enum: a choice of the case names, or, when cases carry values, a choice of the plain
// case names and one-property objects `{"case": {"label": value, ...}}` (unlabeled values are
// `_0`, `_1`, ... as in Swift's own `Codable` for enums).
//
// The generated code calls only Quanta's public API, qualified with the module name so that
// user types of the same names do not capture it.

struct GenerableExpansion {
    let type: TypeDeclaration
    let options: GenerableOptions
    /// The stored properties that generation sets (`let` constants with a value are fixed).
    let properties: [StoredProperty]

    init(type: TypeDeclaration, options: GenerableOptions) throws(MacroError) {
        guard type.kind == .struct || type.kind == .enum else {
            throw MacroError("'@Generable' can only be applied to a struct or an enum", at: type.nameToken)
        }
        if let generic = type.genericClause {
            throw MacroError("'@Generable' does not support generic types", at: generic)
        }
        properties = type.properties.filter { !($0.isLet && $0.initializer != nil) }
        for property in properties where property.type == nil {
            throw MacroError("'@Generable' property '\(property.key)' needs an explicit type annotation", at: property.nameToken)
        }
        if type.kind == .enum && type.cases.isEmpty {
            throw MacroError("'@Generable' enum '\(type.name)' needs at least one case", at: type.nameToken)
        }
        self.type = type
        self.options = options
    }

    /// `public ` or `package ` for types visible outside their module, so that the members
    /// meeting `Generable`'s requirements are as visible as the type.
    private var access: String {
        switch type.accessLevel {
        case "public", "open": return "public "
        case "package": return "package "
        default: return ""
        }
    }

    // MARK: - Member role

    func members() -> String {
        type.kind == .struct ? structMembers() : enumMembers()
    }

    private func structMembers() -> String {
        let schemaProperties = properties.map { property in
            "        Quanta.GenerationSchema.Property("
                + arguments(["name: \(literal(property.key))", description(of: property).map { "description: \($0)" },
                             "type: \(property.type!).self", "guides: [\(guides(of: property).joined(separator: ", "))]"])
                + "),"
        }
        let explicitNil = options.representNilExplicitly ? "representNilExplicitlyInGeneratedContent: true, " : ""
        let partialProperties = properties.map { "    \(access)var \($0.name): \(partialType(of: $0.type!))" }
        let partialReads = properties.map {
            "        self.\($0.name) = try? content.value(\(partialType(of: $0.type!)).self, forProperty: \(literal($0.key)))"
        }
        return """
            \(access)nonisolated static var generationSchema: Quanta.GenerationSchema {
                Quanta.GenerationSchema(type: Self.self, \(options.description.map { "description: \($0), " } ?? "")\(explicitNil)properties: [
            \(schemaProperties.joined(separator: "\n"))
                ])\(renaming)
            }

            \(access)\(nonisolatedDeclaration)struct PartiallyGenerated: Identifiable, Quanta.ConvertibleFromGeneratedContent {
                \(access)var id: Quanta.GenerationID
            \(partialProperties.joined(separator: "\n"))

                \(access)nonisolated init(_ content: Quanta.GeneratedContent) throws {
                    self.id = content.id ?? Quanta.GenerationID()
            \(partialReads.joined(separator: "\n"))
                }
            }
            """
    }

    private func enumMembers() -> String {
        let schema: String
        if type.cases.allSatisfy({ $0.values == nil }) {
            schema = "Quanta.GenerationSchema(type: Self.self, \(options.description.map { "description: \($0), " } ?? "")"
                + "anyOf: [\(type.cases.map { literal($0.key) }.joined(separator: ", "))])"
        } else {
            let cases = type.cases.map { enumCase -> String in
                guard let values = enumCase.values else { return "        .init(name: \(literal(enumCase.key)), properties: nil)," }
                let properties = values.enumerated().map { index, value in
                    "Quanta.GenerationSchema.Property(name: \(literal(valueKey(value, index))), type: \(value.type).self)"
                }
                return "        .init(name: \(literal(enumCase.key)), properties: [\(properties.joined(separator: ", "))]),"
            }
            schema = """
                Quanta.GenerationSchema(type: Self.self, \(options.description.map { "description: \($0), " } ?? "")_cases: [
                \(cases.joined(separator: "\n"))
                    ])
                """
        }
        return """
            \(access)nonisolated static var generationSchema: Quanta.GenerationSchema {
                \(schema)\(renaming)
            }
            """
    }

    /// `._named(...)` for `@Generable(name:)`.
    private var renaming: String {
        options.name.map { "._named(\($0))" } ?? ""
    }

    // MARK: - Extension role

    func conformance(extending extendedType: String, addingConformance: Bool) -> String {
        let body = type.kind == .struct ? structConformance() : enumConformance()
        return "extension \(extendedType)\(addingConformance ? ": \(nonisolatedDeclaration)Quanta.Generable" : "") {\n\(body)\n}"
    }

    private func structConformance() -> String {
        let reads = properties.map { "        self.\($0.name) = try content.value(\($0.type!).self, forProperty: \(literal($0.key)))" }
        return """
                \(access)nonisolated init(_ content: Quanta.GeneratedContent) throws {
            \(reads.joined(separator: "\n"))
                }

                \(access)nonisolated var generatedContent: Quanta.GeneratedContent {
            \(contentExpression(properties.map { ($0.key, "self.\($0.name)", isOptional($0.type!)) }, indent: "        "))
                }
            """
    }

    private func enumConformance() -> String {
        let plain = type.cases.filter { $0.values == nil }
        let valued = type.cases.filter { $0.values != nil }
        var reads: [String] = []
        if !plain.isEmpty {
            let choices = plain.map { "        case \(literal($0.key)): self = .\($0.name); return" }
            reads.append("""
                        if case .string(let name) = content.kind {
                            switch name {
                    \(choices.joined(separator: "\n"))
                            default: break
                            }
                        }
                """)
        }
        for enumCase in valued {
            let values = enumCase.values!
            let arguments = values.enumerated().map { index, value in
                (value.label.map { "\($0): " } ?? "") + "try values.value(\(value.type).self, forProperty: \(literal(valueKey(value, index))))"
            }
            reads.append("""
                        if case .structure(let properties, _) = content.kind, properties.count == 1, let values = properties[\(literal(enumCase.key))] {
                            self = .\(enumCase.name)(\(arguments.joined(separator: ", ")))
                            return
                        }
                """)
        }
        let writes = type.cases.map { enumCase -> String in
            guard let values = enumCase.values else {
                return "        case .\(enumCase.name): return Quanta.GeneratedContent(\(literal(enumCase.key)))"
            }
            let bindings = values.indices.map { "let v\($0)" }.joined(separator: ", ")
            let fields = values.enumerated().map { index, value in (valueKey(value, index), "v\(index)", isOptional(value.type)) }
            return """
                        case .\(enumCase.name)(\(bindings)):
                            let values: Quanta.GeneratedContent = {
                \(contentExpression(fields, indent: "                "))
                            }()
                            return Quanta.GeneratedContent(properties: [\(literal(enumCase.key)): values])
                """
        }
        return """
                \(access)nonisolated init(_ content: Quanta.GeneratedContent) throws {
            \(reads.joined(separator: "\n"))
                    throw DecodingError.dataCorrupted(DecodingError.Context(
                        codingPath: [], debugDescription: "\(type.name) has no case matching \\(content.jsonString)"))
                }

                \(access)nonisolated var generatedContent: Quanta.GeneratedContent {
                    switch self {
            \(writes.joined(separator: "\n"))
                    }
                }
            """
    }

    /// A `return` of the structure with these (key, expression, is optional) fields, in order.
    /// Absent optionals are left out unless nil is represented explicitly.
    private func contentExpression(_ fields: [(key: String, value: String, optional: Bool)], indent: String) -> String {
        if fields.allSatisfy({ !$0.optional }) || options.representNilExplicitly {
            let pairs = fields.map { "\(literal($0.key)): \($0.value)" }
            return "\(indent)return Quanta.GeneratedContent(properties: [\(pairs.isEmpty ? ":" : pairs.joined(separator: ", "))])"
        }
        var lines = ["\(indent)var properties: [(String, any Quanta.ConvertibleToGeneratedContent)] = []"]
        for field in fields {
            if field.optional {
                lines.append("\(indent)if let value = \(field.value) { properties.append((\(literal(field.key)), value)) }")
            } else {
                lines.append("\(indent)properties.append((\(literal(field.key)), \(field.value)))")
            }
        }
        lines.append("\(indent)return Quanta.GeneratedContent(properties: properties, uniquingKeysWith: { _, last in last })")
        return lines.joined(separator: "\n")
    }

    // MARK: - Pieces

    /// The description of `@Guide(description:)` on the property, if any.
    private func description(of property: StoredProperty) -> String? {
        guideAttributes(of: property).lazy.compactMap { $0.arguments?.first { $0.label == "description" }?.value }.first
    }

    /// The guide expressions of the property's `@Guide` attributes, as written.
    private func guides(of property: StoredProperty) -> [String] {
        guideAttributes(of: property).flatMap { ($0.arguments ?? []).filter { $0.label == nil }.map(\.value) }
    }

    private func guideAttributes(of property: StoredProperty) -> [Attribute] {
        property.attributes.filter { $0.name == "Guide" || $0.name == "Quanta.Guide" }
    }

    /// `T.PartiallyGenerated?` for a property of type `T` or `T?`.
    private func partialType(of typeText: String) -> String {
        "\(unwrapped(typeText)).PartiallyGenerated?"
    }

    /// The key of an associated value: its label, or `_<index>`.
    private func valueKey(_ value: CaseValue, _ index: Int) -> String {
        value.label ?? "_\(index)"
    }

    private func arguments(_ parts: [String?]) -> String {
        parts.compactMap { $0 }.joined(separator: ", ")
    }

    /// A Swift string literal of `text` (identifiers only reach here; quotes and backslashes
    /// are escaped all the same).
    private func literal(_ text: String) -> String {
        "\"" + text.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"") + "\""
    }
}

/// `nonisolated ` before the conformance and the nested types the expansions write, where the
/// compiler has isolated conformances (Swift 6.2): in a module whose default isolation is the
/// main actor, a conformance would otherwise be main-actor isolated, and `Generable` requires
/// one usable from any isolation. The plugin is built by the same toolchain that expands it.
#if compiler(>=6.2)
let nonisolatedDeclaration = "nonisolated "
#else
let nonisolatedDeclaration = ""
#endif

/// Whether a type's text is an optional (`T?`, `T!`, `Optional<T>`).
func isOptional(_ typeText: String) -> Bool {
    unwrapped(typeText) != typeText.trimmingSpaces
}

/// The type without one level of optionality.
func unwrapped(_ typeText: String) -> String {
    let text = typeText.trimmingSpaces
    if text.hasSuffix("?") || text.hasSuffix("!") { return String(text.dropLast()).trimmingSpaces }
    for prefix in ["Optional<", "Swift.Optional<"] where text.hasPrefix(prefix) && text.hasSuffix(">") {
        return String(text.dropFirst(prefix.count).dropLast()).trimmingSpaces
    }
    return text
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation needed).
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
