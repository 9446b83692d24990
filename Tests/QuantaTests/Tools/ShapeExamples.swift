import Grammar
import Templates

/// Builds example values a `JSONShape` admits and checks values against shapes, so the tests
/// can produce the documents a tool-call grammar admits and check parsed calls against it.
enum ShapeExamples {
    /// One value `shape` admits: every property (optional ones included), the first choice or
    /// branch, the lower bound of numbers, and the fewest array items allowed (at least one).
    static func example(of shape: JSONShape, definitions: [String: JSONShape] = [:]) -> TemplateValue {
        switch shape {
        case let .object(properties):
            return .object(TemplateObject(properties.map { ($0.name, example(of: $0.shape, definitions: definitions)) }))
        case let .dictionary(values):
            return .object(TemplateObject([("key", example(of: values, definitions: definitions))]))
        case let .array(items, minimumCount, maximumCount):
            let count = min(max(minimumCount, 1), maximumCount ?? Int.max)
            return .array(Array(repeating: example(of: items, definitions: definitions), count: count))
        case let .string(constraint):
            if case let .choices(values) = constraint { return .string(values[0]) }
            return "text \"quoted\" ü"
        case let .integer(minimum, _): return .int(minimum ?? 7)
        case let .number(minimum, _): return .double(minimum ?? 2.5)
        case .boolean: return true
        case .null: return nil
        case let .anyOf(shapes): return example(of: shapes[0], definitions: definitions)
        case let .reference(name): return example(of: definitions[name]!, definitions: definitions)
        }
    }

    /// Whether `value` has `shape` (closed objects with their properties in order, as the
    /// grammar writes them).
    static func conforms(_ value: TemplateValue, to shape: JSONShape, definitions: [String: JSONShape] = [:]) -> Bool {
        switch (shape, value) {
        case let (.object(properties), .object(object)):
            let present = properties.filter { object[$0.name] != nil }
            return object.keys == present.map(\.name) && properties.allSatisfy { $0.isOptional || object[$0.name] != nil }
                && present.allSatisfy { conforms(object[$0.name]!, to: $0.shape, definitions: definitions) }
        case let (.dictionary(values), .object(object)):
            return object.keys.allSatisfy { conforms(object[$0]!, to: values, definitions: definitions) }
        case let (.array(items, minimumCount, maximumCount), .array(values)):
            return values.count >= minimumCount && values.count <= (maximumCount ?? Int.max)
                && values.allSatisfy { conforms($0, to: items, definitions: definitions) }
        case let (.string(constraint), .string(text)):
            if case let .choices(values) = constraint { return values.contains(text) }
            return true
        case let (.integer(minimum, maximum), .int(number)):
            return number >= (minimum ?? Int.min) && number <= (maximum ?? Int.max)
        case (.number, .int), (.number, .double), (.boolean, .bool), (.null, .none): return true
        case let (.anyOf(shapes), _): return shapes.contains { conforms(value, to: $0, definitions: definitions) }
        case let (.reference(name), _): return conforms(value, to: definitions[name]!, definitions: definitions)
        default: return false
        }
    }
}
