import Foundation
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

/// Compares generated content with Foundation's independent parse of the same JSON text.
enum JSONOracle {
    static func parse(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    /// Whether `content` holds the same value as `reference` (a `JSONSerialization` result).
    static func matches(_ content: GeneratedContent, _ reference: Any) -> Bool {
        switch content.kind {
        case .null:
            return reference is NSNull
        case .bool(let value):
            return (reference as? NSNumber).map { isBoolean($0) && $0.boolValue == value } ?? false
        case .number(let value):
            return (reference as? NSNumber).map { !isBoolean($0) && $0.doubleValue == value } ?? false
        case .string(let value):
            return (reference as? String) == value
        case .array(let elements):
            guard let other = reference as? [Any], other.count == elements.count else { return false }
            return zip(elements, other).allSatisfy { matches($0, $1) }
        case .structure(let properties, let orderedKeys):
            guard let other = reference as? [String: Any], Set(other.keys) == Set(properties.keys),
                Set(orderedKeys) == Set(properties.keys)
            else { return false }
            return properties.allSatisfy { key, value in matches(value, other[key]!) }
        }
    }

    /// Foundation reads `true`/`false` as `NSNumber`s of Objective-C type `c` (char); numbers
    /// are `i`, `q` or `d`.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }
}
