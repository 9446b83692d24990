// One expansion request: which macro, in which role, on which declaration; and its answer.

/// The answer to one request: source text (nil when nothing can be written) and diagnostics.
struct ExpansionResult {
    var source: String?
    var diagnostics: [PluginDiagnostic]
}

struct MacroRequest {
    let request: HostMessage.ExpandAttachedMacro

    init(_ request: HostMessage.ExpandAttachedMacro) {
        self.request = request
    }

    /// The expansion, or the diagnostics that stop it. Never throws or traps: any input the
    /// scanner cannot read becomes an error diagnostic.
    func expand() -> ExpansionResult {
        do {
            return ExpansionResult(source: try expansion(), diagnostics: [])
        } catch {
            return ExpansionResult(source: nil, diagnostics: [diagnostic(error)])
        }
    }

    private func expansion() throws(MacroError) -> String {
        let declaration = request.declSyntax.source
        switch (request.macro.typeName, request.macroRole) {
        case ("GenerableMacro", "member"):
            return try generable().members()
        case ("GenerableMacro", "extension"):
            // Errors are reported once, by the member role; the extension then adds nothing.
            guard let expansion = try? generable() else { return "" }
            let extended = request.extendedTypeSyntax?.source.trimmingSpaces ?? expansion.type.name
            let conforms = !(request.conformanceListSyntax?.source.trimmingSpaces ?? "Generable").isEmpty
            return expansion.conformance(extending: extended, addingConformance: conforms)
        case ("GuideMacro", _):
            var scanner = try DeclarationScanner(source: declaration)
            let (property, _) = try scanner.scanProperty()
            try GuideCheck.check(attribute: request.attributeSyntax.source, propertyType: property.type)
            return ""
        case ("SessionPropertyEntryMacro", "accessor"):
            return try SessionPropertyEntryExpansion(declaration: declaration).accessors()
        case ("SessionPropertyEntryMacro", "peer"):
            return try SessionPropertyEntryExpansion(declaration: declaration).key()
        case ("SessionPropertyEntryDefaultValueMacro", "accessor"):
            return try SessionPropertyEntryExpansion(declaration: declaration, allowStatic: true).defaultValueGetter()
        case (let name, let role):
            throw MacroError("this plugin has no \(role) macro '\(name)'", offset: 0)
        }
    }

    /// `@Generable`'s expansion of the declaration, with the attribute's options.
    private func generable() throws(MacroError) -> GenerableExpansion {
        var scanner = try DeclarationScanner(source: request.declSyntax.source)
        let type = try scanner.scanType()
        return try GenerableExpansion(type: type, options: try GenerableOptions(attribute: request.attributeSyntax.source))
    }

    /// `error` at its place in the file. Offsets from the attribute's own text (options of
    /// `@Generable(...)`) are marked by `GenerableOptions` as attribute-relative.
    private func diagnostic(_ error: MacroError) -> PluginDiagnostic {
        let base = error.inAttribute ? request.attributeSyntax.location : request.declSyntax.location
        return PluginDiagnostic(error: error.message, file: base.fileName, start: base.offset + error.start, end: base.offset + error.end)
    }
}
