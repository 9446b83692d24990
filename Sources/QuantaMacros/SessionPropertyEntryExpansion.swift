// What `@SessionPropertyEntry` writes for `var name: Type = value` inside an extension of
// `SessionPropertyValues`:
//   accessor role: `get`/`set` through the key below, so the property reads the session's value;
//   peer role:     `private struct __Key_name: SessionPropertyKey` whose `defaultValue` is the
//                  property's initial value, made a getter by `@__SessionPropertyEntryDefaultValue`
//                  (so it is evaluated on each read: no global mutable state, any value type).

struct SessionPropertyEntryExpansion {
    let property: StoredProperty

    /// Reads the property; `allowStatic` for the key's own `static var defaultValue`.
    init(declaration: String, allowStatic: Bool = false) throws(MacroError) {
        var scanner = try DeclarationScanner(source: declaration)
        let (property, isStatic) = try scanner.scanProperty()
        if isStatic && !allowStatic {
            throw MacroError("'@SessionPropertyEntry' cannot be applied to a static property", at: property.nameToken)
        }
        self.property = property
    }

    private var keyName: String { "__Key_\(property.key)" }

    func accessors() throws(MacroError) -> String {
        guard !property.isLet else { throw MacroError("'@SessionPropertyEntry' requires a 'var'", at: property.nameToken) }
        return """
            get {
                self[\(keyName).self]
            }
            set {
                self[\(keyName).self] = newValue
            }
            """
    }

    func key() throws(MacroError) -> String {
        let typeAnnotation = property.type.map { ": \($0)" } ?? ""
        if property.initializer == nil && !(property.type.map(isOptional) ?? false) {
            throw MacroError("'@SessionPropertyEntry' property '\(property.key)' needs a default value", at: property.nameToken)
        }
        let value = property.initializer ?? "nil"
        return """
            private \(nonisolatedDeclaration)struct \(keyName): Quanta.SessionPropertyKey {
                @Quanta.__SessionPropertyEntryDefaultValue static var defaultValue\(typeAnnotation) = \(value)
            }
            """
    }

    /// The getter that replaces the key's stored `defaultValue`.
    func defaultValueGetter() throws(MacroError) -> String {
        guard let value = property.initializer else {
            throw MacroError("'@__SessionPropertyEntryDefaultValue' needs an initial value", at: property.nameToken)
        }
        return "get {\n    \(value)\n}"
    }
}
