// A `JSONGrammar` lowered to numbered nodes with resolved references, compiled patterns and the
// shortest document of every node, shared read-only by all matchers of that grammar.

/// The grammar in the form the matcher walks. Immutable once built.
final class CompiledGrammar: Sendable {
    enum Node: Sendable {
        case object([Property])
        /// Any keys, each value of node `value`.
        case dictionary(value: Int)
        case array(item: Int, minimumCount: Int, maximumCount: Int?)
        case anyString
        case pattern(RegexNFA)
        /// Canonical JSON spellings of the choices without the opening quote, with the closing one; sorted.
        case choices([[UInt8]])
        case number(NumberRule)
        case boolean
        case null
        case anyOf([Int])
    }

    struct Property: Sendable {
        /// The key with both quotes.
        var key: [UInt8]
        var value: Int
        var isOptional: Bool
    }

    let nodes: [Node]
    let root: Int
    let prefix: [UInt8]
    let suffix: [UInt8]
    /// The shortest document of each node (nil: the node has no finite document and is never entered).
    let minimal: [[UInt8]?]
    /// For each node, the non-`anyOf` nodes a value of it may be (finite ones only).
    let alternatives: [[Int]]

    static let literals: [[UInt8]] = [Array("true".utf8), Array("false".utf8), Array("null".utf8)]

    init(_ grammar: JSONGrammar) throws(GrammarError) {
        var builder = Builder(definitions: grammar.definitions)
        root = try builder.add(grammar.root)
        nodes = builder.nodes
        prefix = Array(grammar.prefix.utf8)
        suffix = Array(grammar.suffix.utf8)
        minimal = CompiledGrammar.shortestDocuments(nodes)
        guard minimal[root] != nil else { throw .noFiniteDocument }
        let nodes = self.nodes, minimal = self.minimal
        alternatives = nodes.indices.map { CompiledGrammar.concreteAlternatives(of: $0, nodes: nodes, minimal: minimal) }
    }

    /// Properties that may be written next when the previous one was at `index - 1`: the following
    /// properties up to and including the next required one.
    func keyCandidates(_ properties: [Property], from index: Int) -> [Int] {
        var result: [Int] = []
        for candidate in index..<properties.count {
            if minimal[properties[candidate].value] != nil { result.append(candidate) }
            if !properties[candidate].isOptional { break }
        }
        return result
    }

    /// Whether the object may close once properties before `index` are done.
    func canClose(_ properties: [Property], from index: Int) -> Bool {
        properties[index...].allSatisfy(\.isOptional)
    }

    private static func concreteAlternatives(of node: Int, nodes: [Node], minimal: [[UInt8]?]) -> [Int] {
        var result: [Int] = []
        var visited = Set<Int>()
        var pending = [node]
        while let next = pending.popLast() {
            guard visited.insert(next).inserted, minimal[next] != nil else { continue }
            if case let .anyOf(options) = nodes[next] { pending += options.reversed() } else { result.append(next) }
        }
        return result
    }

    /// Fixed point of "shortest document" over the node graph (recursion makes one pass insufficient).
    private static func shortestDocuments(_ nodes: [Node]) -> [[UInt8]?] {
        var minimal = [[UInt8]?](repeating: nil, count: nodes.count)
        var changed = true
        while changed {
            changed = false
            for (index, node) in nodes.enumerated() {
                guard let candidate = shortestDocument(node, known: minimal),
                      candidate.count < (minimal[index]?.count ?? .max) else { continue }
                minimal[index] = candidate
                changed = true
            }
        }
        return minimal
    }

    private static func shortestDocument(_ node: Node, known: [[UInt8]?]) -> [UInt8]? {
        switch node {
        case let .object(properties):
            var bytes: [UInt8] = [UInt8(ascii: "{")]
            for property in properties where !property.isOptional {
                guard let value = known[property.value] else { return nil }
                if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
                bytes += property.key + [UInt8(ascii: ":")] + value
            }
            return bytes + [UInt8(ascii: "}")]
        case .dictionary: return Array("{}".utf8)
        case let .array(item, minimumCount, _):
            var bytes: [UInt8] = [UInt8(ascii: "[")]
            if minimumCount > 0 {
                guard let value = known[item] else { return nil }
                for index in 0..<minimumCount { bytes += (index > 0 ? [UInt8(ascii: ",")] : []) + value }
            }
            return bytes + [UInt8(ascii: "]")]
        case .anyString: return Array("\"\"".utf8)
        case let .pattern(automaton):
            return automaton.cheapestCompletion(from: automaton.start).map { [UInt8(ascii: "\"")] + $0 + [UInt8(ascii: "\"")] }
        case let .choices(spellings):
            return spellings.min { $0.count < $1.count }.map { [UInt8(ascii: "\"")] + $0 }
        case let .number(rule):
            let positive = NumberPrefix().shortestCompletion(rule: rule)
            let negative = NumberPrefix(isNegative: true).shortestCompletion(rule: rule).map { [UInt8(ascii: "-")] + $0 }
            return [positive, negative].compactMap { $0 }.min { $0.count < $1.count }
        case .boolean: return literals[0]
        case .null: return literals[2]
        case let .anyOf(options):
            return options.compactMap { known[$0] }.min { $0.count < $1.count }
        }
    }
}

/// Numbers the shapes of a `JSONGrammar`, resolving each definition once so recursion terminates.
private struct Builder {
    let definitions: [String: JSONShape]
    var nodes: [CompiledGrammar.Node] = []
    var definitionNodes: [String: Int] = [:]

    init(definitions: [String: JSONShape]) { self.definitions = definitions }

    mutating func add(_ shape: JSONShape) throws(GrammarError) -> Int {
        let index = nodes.count
        nodes.append(.null)  // reserved so children can be numbered; replaced below
        nodes[index] = try lower(shape)
        return index
    }

    private mutating func lower(_ shape: JSONShape) throws(GrammarError) -> CompiledGrammar.Node {
        switch shape {
        case let .object(properties):
            var lowered: [CompiledGrammar.Property] = []
            for property in properties {
                let key = [UInt8(ascii: "\"")] + jsonEscaped(property.name) + [UInt8(ascii: "\"")]
                lowered.append(.init(key: key, value: try add(property.shape), isOptional: property.isOptional))
            }
            return .object(lowered)
        case let .dictionary(values):
            return .dictionary(value: try add(values))
        case let .array(items, minimumCount, maximumCount):
            guard minimumCount >= 0, minimumCount <= (maximumCount ?? .max) else {
                throw .emptyRange("array count \(minimumCount)...\(maximumCount.map(String.init) ?? "")")
            }
            return .array(item: try add(items), minimumCount: minimumCount, maximumCount: maximumCount)
        case let .string(constraint):
            switch constraint {
            case .any: return .anyString
            case let .pattern(pattern): return .pattern(try RegexNFA(pattern: pattern))
            case let .choices(values):
                guard !values.isEmpty else { throw .noChoices }
                let spellings = Set(values.map { jsonEscaped($0) + [UInt8(ascii: "\"")] })
                return .choices(spellings.sorted { $0.lexicographicallyPrecedes($1) })
            }
        case let .integer(minimum, maximum):
            return .number(try numberRule(minimum.map(Double.init), maximum.map(Double.init), fraction: false))
        case let .number(minimum, maximum):
            return .number(try numberRule(minimum, maximum, fraction: true))
        case .boolean: return .boolean
        case .null: return .null
        case let .anyOf(options):
            var lowered: [Int] = []
            for option in options { lowered.append(try add(option)) }
            return .anyOf(lowered)
        case let .reference(name):
            return .anyOf([try definitionNode(name)])
        }
    }

    private mutating func definitionNode(_ name: String) throws(GrammarError) -> Int {
        if let known = definitionNodes[name] { return known }
        guard let shape = definitions[name] else { throw .undefinedReference(name) }
        let index = nodes.count
        definitionNodes[name] = index
        nodes.append(.null)
        nodes[index] = try lower(shape)
        return index
    }

    private func numberRule(_ minimum: Double?, _ maximum: Double?, fraction: Bool) throws(GrammarError) -> NumberRule {
        let rule = NumberRule(minimum: minimum ?? -.infinity, maximum: maximum ?? .infinity, allowsFraction: fraction)
        guard !rule.minimum.isNaN, !rule.maximum.isNaN, rule.minimum <= rule.maximum else {
            throw .emptyRange("number \(minimum.map { "\($0)" } ?? "")...\(maximum.map { "\($0)" } ?? "")")
        }
        return rule
    }
}

/// A string's content as JSON writes it canonically (the escapes `JSONSerialization` would use).
func jsonEscaped(_ text: String) -> [UInt8] {
    text.unicodeScalars.flatMap { jsonStringBytes(of: $0.value) }
}
