// The arguments of `@Generable(...)`: `description:`, `name:` and
// `representNilExplicitlyInGeneratedContent:`, as FM27 declares them.

struct GenerableOptions {
    /// The description expression's source text.
    var description: String?
    /// The schema name expression's source text (`@Generable(name:)`).
    var name: String?
    /// Whether absent optionals are written as `null` in generated content.
    var representNilExplicitly = false

    /// The options written in `attribute`, the attribute's source text. Errors carry offsets
    /// into that text.
    init(attribute: String) throws(MacroError) {
        do {
            try read(attribute)
        } catch {
            var relative = error
            relative.inAttribute = true
            throw relative
        }
    }

    private mutating func read(_ attribute: String) throws(MacroError) {
        var scanner = try DeclarationScanner(source: attribute)
        guard let written = try scanner.scanLeadingAttributes().first else { return }
        for argument in written.arguments ?? [] {
            switch argument.label {
            case "description": description = argument.value
            case "name": name = argument.value
            case "representNilExplicitlyInGeneratedContent":
                switch argument.value {
                case "true": representNilExplicitly = true
                case "false": representNilExplicitly = false
                default:
                    throw MacroError("'representNilExplicitlyInGeneratedContent' must be the literal true or false",
                                     from: argument.first, to: argument.last)
                }
            default:
                throw MacroError("'@Generable' has no argument '\(argument.label ?? "_")'", from: argument.first, to: argument.last)
            }
        }
    }
}
