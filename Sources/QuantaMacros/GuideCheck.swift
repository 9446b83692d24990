// `@Guide` on a property: its guides must be ones that apply to the property's type. Checked
// where the type is one whose guides are known (strings, integers, floating-point numbers,
// arrays); other types, such as the app's own `@Generable` types, are left to the compiler.

struct GuideCheck {
    /// The guides each family of types accepts, by the static member the guide is written with.
    private static let families: [(types: Set<String>, guides: Set<String>)] = [
        (["String"], ["anyOf", "constant", "pattern"]),
        (["Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"], ["minimum", "maximum", "range"]),
        (["Double", "Float", "Decimal", "CGFloat"], ["minimum", "maximum", "range"]),
        (["Bool"], []),
    ]
    private static let arrayGuides: Set<String> = ["count", "minimumCount", "maximumCount", "element"]

    /// Throws for the first guide of `attribute` (offsets in its own text) that cannot apply to
    /// a property of `typeText`.
    static func check(attribute: String, propertyType typeText: String?) throws(MacroError) {
        guard let typeText else { return }
        var scanner: DeclarationScanner
        let attributes: [Attribute]
        do {
            scanner = try DeclarationScanner(source: attribute)
            attributes = try scanner.scanLeadingAttributes()
        } catch {
            var relative = error
            relative.inAttribute = true
            throw relative
        }
        let type = unwrapped(typeText)
        let isArray = type.hasPrefix("[") && type.hasSuffix("]") && !type.contains(":") || type.hasPrefix("Array<")
        let family = families.first { $0.types.contains(type) }
        guard isArray || family != nil else { return }
        for argument in attributes.first?.arguments ?? [] where argument.label == nil {
            let value = argument.value
            let isRegex = value.hasPrefix("/") || value.hasPrefix("#/") || value.hasPrefix("Regex") || value.hasPrefix("try")
            let accepted: Bool
            if isRegex {
                accepted = type == "String"
            } else if value.hasPrefix("."), let name = value.dropFirst().split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).first {
                accepted = isArray ? arrayGuides.contains(String(name)) : family!.guides.contains(String(name))
            } else {
                continue
            }
            if !accepted {
                var error = MacroError("'\(value.prefix(40))' is not a guide for a property of type '\(typeText.trimmingSpaces)'",
                                       from: argument.first, to: argument.last)
                error.inAttribute = true
                throw error
            }
        }
    }
}
