// An independent reference for tests: a small JSON parser that keeps key order and number text, and a
// validator that checks a parsed value against a `JSONShape` the naive way (no automaton).
import Foundation
import Grammar

/// A parsed JSON value that keeps what `JSONSerialization` loses: key order and the number's text.
indirect enum ReferenceJSON: Equatable {
    case object([(String, ReferenceJSON)])
    case array([ReferenceJSON])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    static func == (a: ReferenceJSON, b: ReferenceJSON) -> Bool { "\(a)" == "\(b)" }

    /// Parses a complete value, or nil.
    static func parse(_ text: String) -> ReferenceJSON? {
        var parser = Parser(scalars: Array(text.unicodeScalars))
        guard let value = parser.value(), parser.index == parser.scalars.count else { return nil }
        return value
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0

        mutating func skipSpace() { while index < scalars.count, " \t\n\r".unicodeScalars.contains(scalars[index]) { index += 1 } }
        mutating func eat(_ c: Unicode.Scalar) -> Bool {
            skipSpace()
            guard index < scalars.count, scalars[index] == c else { return false }
            index += 1
            return true
        }
        mutating func literal(_ word: String) -> Bool {
            let w = Array(word.unicodeScalars)
            guard index + w.count <= scalars.count, Array(scalars[index..<index + w.count]) == w else { return false }
            index += w.count
            return true
        }

        mutating func value() -> ReferenceJSON? {
            skipSpace()
            guard index < scalars.count else { return nil }
            switch scalars[index] {
            case "{":
                index += 1
                var members: [(String, ReferenceJSON)] = []
                if eat("}") { return .object(members) }
                repeat {
                    skipSpace()
                    guard case let .string(key)? = stringValue(), eat(":"), let v = value() else { return nil }
                    members.append((key, v))
                } while eat(",")
                return eat("}") ? .object(members) : nil
            case "[":
                index += 1
                var items: [ReferenceJSON] = []
                if eat("]") { return .array(items) }
                repeat {
                    guard let v = value() else { return nil }
                    items.append(v)
                } while eat(",")
                return eat("]") ? .array(items) : nil
            case "\"": return stringValue()
            case "t": return literal("true") ? .bool(true) : nil
            case "f": return literal("false") ? .bool(false) : nil
            case "n": return literal("null") ? .null : nil
            default:
                let start = index
                while index < scalars.count, "-+.eE0123456789".unicodeScalars.contains(scalars[index]) { index += 1 }
                guard index > start else { return nil }
                return .number(String(String.UnicodeScalarView(scalars[start..<index])))
            }
        }

        mutating func stringValue() -> ReferenceJSON? {
            guard index < scalars.count, scalars[index] == "\"" else { return nil }
            index += 1
            var out = String.UnicodeScalarView()
            while index < scalars.count {
                let c = scalars[index]
                index += 1
                if c == "\"" { return .string(String(out)) }
                if c != "\\" { out.append(c); continue }
                guard index < scalars.count else { return nil }
                let e = scalars[index]
                index += 1
                switch e {
                case "\"", "\\", "/": out.append(e)
                case "b": out.append("\u{8}")
                case "f": out.append("\u{C}")
                case "n": out.append("\n")
                case "r": out.append("\r")
                case "t": out.append("\t")
                case "u":
                    guard index + 4 <= scalars.count,
                          let v = UInt32(String(String.UnicodeScalarView(scalars[index..<index + 4])), radix: 16),
                          let s = Unicode.Scalar(v) else { return nil }
                    index += 4
                    out.append(s)
                default: return nil
                }
            }
            return nil
        }
    }
}

/// Checks a parsed value against a shape, naively: every alternative tried, every rule checked directly.
struct ReferenceValidator {
    let definitions: [String: JSONShape]

    func isValid(_ value: ReferenceJSON, _ shape: JSONShape, depth: Int = 0) -> Bool {
        guard depth < 64 else { return false }
        switch (shape, value) {
        case let (.object(properties), .object(members)):
            // Keys appear in declared order, each at most once, all required ones present, no others.
            var position = 0
            for (key, member) in members {
                guard let found = properties[position...].firstIndex(where: { $0.name == key }) else { return false }
                if properties[position..<found].contains(where: { !$0.isOptional }) { return false }
                guard isValid(member, properties[found].shape, depth: depth + 1) else { return false }
                position = found + 1
            }
            return !properties[position...].contains { !$0.isOptional }
        case let (.dictionary(values), .object(members)):
            // Any keys, in any order; every value of the one shape.
            return members.allSatisfy { isValid($0.1, values, depth: depth + 1) }
        case let (.array(items, minimumCount, maximumCount), .array(elements)):
            return elements.count >= minimumCount && elements.count <= (maximumCount ?? .max)
                && elements.allSatisfy { isValid($0, items, depth: depth + 1) }
        case let (.string(constraint), .string(text)):
            switch constraint {
            case .any: return true
            case let .choices(values): return values.contains(text)
            case let .pattern(pattern):
                guard let regex = try? Regex(pattern) else { return false }
                return (try? regex.matchingSemantics(.unicodeScalar).asciiOnlyCharacterClasses().wholeMatch(in: text)) != nil
            }
        case let (.integer(minimum, maximum), .number(text)):
            guard !text.contains("."), !text.contains("e"), let v = Int(text), text.filter(\.isNumber).count <= 15 else { return false }
            return v >= (minimum ?? .min) && v <= (maximum ?? .max)
        case let (.number(minimum, maximum), .number(text)):
            guard !text.contains("e"), !text.contains("E"), let v = Double(text) else { return false }
            if let dot = text.firstIndex(of: ".") {
                let fraction = text[text.index(after: dot)...]
                guard (1...6).contains(fraction.count) else { return false }
            }
            return v >= (minimum ?? -.infinity) && v <= (maximum ?? .infinity)
        case (.boolean, .bool), (.null, .null): return true
        case let (.anyOf(options), _): return options.contains { isValid(value, $0, depth: depth + 1) }
        case let (.reference(name), _):
            guard let target = definitions[name] else { return false }
            return isValid(value, target, depth: depth + 1)
        default: return false
        }
    }

    /// The whole document: prefix, a value of `grammar.root` accepted by `JSONSerialization` too, suffix.
    static func validates(_ document: [UInt8], _ grammar: JSONGrammar) -> Bool {
        guard let text = String(validating: document, as: UTF8.self),
              text.hasPrefix(grammar.prefix), text.hasSuffix(grammar.suffix),
              text.utf8.count >= grammar.prefix.utf8.count + grammar.suffix.utf8.count else { return false }
        let body = String(decoding: document.dropFirst(grammar.prefix.utf8.count).dropLast(grammar.suffix.utf8.count), as: UTF8.self)
        guard (try? JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed])) != nil,
              let value = ReferenceJSON.parse(body) else { return false }
        return ReferenceValidator(definitions: grammar.definitions).isValid(value, grammar.root)
    }
}
