import Foundation

extension GenerationSchema: Codable {
    /// Reads a JSON Schema document in the format `encode(to:)` writes (see `JSONSchemaWriter`);
    /// throws `DecodingError.dataCorrupted` for other documents and for malformed schemas.
    public init(from decoder: any Decoder) throws {
        let document = try CodableContent(from: decoder).content
        do {
            try self.init(jsonSchemaDocument: document)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "Not a generation schema: \(error)", underlyingError: error))
        }
    }

    /// The schema a JSON Schema document already read into content describes (what `init(from:)`
    /// reads, without a `Decoder`); throws for other documents and for malformed schemas.
    package init(jsonSchemaDocument document: GeneratedContent) throws {
        let schema = try JSONSchemaReader.schema(from: document)
        _ = try SchemaResolver.resolve(schema)
        self = schema
    }

    /// Writes the schema as a JSON Schema document; throws `EncodingError.invalidValue` for a
    /// malformed schema (see `SchemaResolver`).
    public func encode(to encoder: any Encoder) throws {
        try CodableContent(content: try jsonSchema(codingPath: encoder.codingPath)).encode(to: encoder)
    }

    /// The schema as a JSON Schema document.
    private func jsonSchema(codingPath: [any CodingKey]) throws -> GeneratedContent {
        do {
            return JSONSchemaWriter.document(try SchemaResolver.resolve(self))
        } catch {
            throw EncodingError.invalidValue(
                self, EncodingError.Context(codingPath: codingPath, debugDescription: "Malformed schema: \(error)", underlyingError: error))
        }
    }

    /// Compact JSON Schema text to show the model when the schema is included in the prompt. A
    /// malformed schema renders as its error, which generation reports before the prompt is used.
    package func schemaPromptText() -> String {
        do {
            return JSONSchemaWriter.document(try SchemaResolver.resolve(self)).jsonString
        } catch {
            return "Invalid schema \(name): \(error)"
        }
    }
}

extension GenerationSchema: CustomDebugStringConvertible {
    /// The JSON Schema text.
    public var debugDescription: String {
        schemaPromptText()
    }
}

/// `GeneratedContent` as `Codable` JSON, for schema coding through any encoder or decoder.
struct CodableContent: Codable {
    var content: GeneratedContent

    init(content: GeneratedContent) {
        self.content = content
    }

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var elements: [GeneratedContent] = []
            while !array.isAtEnd { elements.append(try array.decode(CodableContent.self).content) }
            content = GeneratedContent(kind: .array(elements))
        } else if let object = try? decoder.container(keyedBy: PropertyKey.self) {
            // Decoders do not promise key order; sorting keeps decoding deterministic (`x-order` keeps property order).
            content = GeneratedContent(object: try object.allKeys.sorted { $0.stringValue < $1.stringValue }.map { ($0.stringValue, try object.decode(CodableContent.self, forKey: $0).content) })
        } else {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() {
                content = GeneratedContent(kind: .null)
            } else if let bool = try? value.decode(Bool.self) {
                content = GeneratedContent(kind: .bool(bool))
            } else if let number = try? value.decode(Double.self) {
                content = GeneratedContent(kind: .number(number))
            } else {
                content = GeneratedContent(kind: .string(try value.decode(String.self)))
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch content.kind {
        case .null:
            var value = encoder.singleValueContainer()
            try value.encodeNil()
        case .bool(let bool):
            var value = encoder.singleValueContainer()
            try value.encode(bool)
        case .number(let number):
            var value = encoder.singleValueContainer()
            // Integral values encode as integers so bounds and counts read `3`, not `3.0`.
            if let integer = Int(exactly: number) { try value.encode(integer) } else { try value.encode(number) }
        case .string(let string):
            var value = encoder.singleValueContainer()
            try value.encode(string)
        case .array(let elements):
            var array = encoder.unkeyedContainer()
            for element in elements { try array.encode(CodableContent(content: element)) }
        case .structure(let properties, let orderedKeys):
            var object = encoder.container(keyedBy: PropertyKey.self)
            for key in JSONWriter.keysInOrder(properties, orderedKeys) {
                try object.encode(CodableContent(content: properties[key]!), forKey: PropertyKey(stringValue: key))
            }
        }
    }
}
