extension GeneratedContent {
    /// This content converted to `Value`.
    public func value<Value>(_ type: Value.Type = Value.self) throws -> Value where Value: ConvertibleFromGeneratedContent {
        try Value(self)
    }

    /// The property `property` of this structure, converted to `Value`; throws when this is not a
    /// structure or the property is missing.
    public func value<Value>(_ type: Value.Type = Value.self, forProperty property: String) throws -> Value
    where Value: ConvertibleFromGeneratedContent {
        guard let content = try propertyContent(property) else {
            throw ContentConversionError.missingProperty(property, in: self)
        }
        return try Value(content)
    }

    /// The property `property` of this structure converted to `Value`, or nil when it is missing
    /// or `null`; throws when this is not a structure.
    public func value<Value>(_ type: Value?.Type = Value?.self, forProperty property: String) throws -> Value?
    where Value: ConvertibleFromGeneratedContent {
        guard let content = try propertyContent(property) else { return nil }
        if case .null = content.kind { return nil }
        return try Value(content)
    }

    /// The property's content, nil when absent.
    private func propertyContent(_ property: String) throws -> GeneratedContent? {
        guard case .structure(let properties, _) = kind else {
            throw ContentConversionError.typeMismatch(expected: "a structure", in: self)
        }
        return properties[property]
    }
}
