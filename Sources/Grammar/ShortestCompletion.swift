// The fewest bytes that finish the document from the matcher's current state: what a decoder forces
// when the token budget runs out, so even a cut-short generation is a valid document.

extension JSONMatcher {
    /// The shortest byte string that completes the document (empty once complete). Feeding it is
    /// always accepted and leaves the matcher complete.
    public var shortestCompletion: [UInt8] {
        var best: [UInt8]?
        for stack in stacks {
            guard let candidate = completion(of: stack), candidate.count < (best?.count ?? .max) else { continue }
            best = candidate
        }
        // Every kept parse can finish (children with no finite document are never entered), so `best` exists.
        return best ?? []
    }

    private func completion(of stack: ParseStack) -> [UInt8]? {
        var bytes: [UInt8] = []
        for frame in stack.frames.reversed() {
            guard let rest = remainder(of: frame) else { return nil }
            bytes += rest
        }
        return bytes
    }

    /// What closes `frame` from its stage, children above it assumed finished.
    private func remainder(of frame: ParseFrame) -> [UInt8]? {
        switch frame {
        case let .document(.prefix(written)):
            guard let value = grammar.minimal[grammar.root] else { return nil }
            return Array(grammar.prefix[Int(written)...]) + value + grammar.suffix
        case let .document(.suffix(written)):
            return Array(grammar.suffix[Int(written)...])
        case let .object(node, stage):
            guard case let .object(properties) = grammar.nodes[Int(node)] else { return nil }
            return objectRemainder(properties, stage)
        case let .dictionary(node, stage):
            guard case let .dictionary(value) = grammar.nodes[Int(node)], let shortest = grammar.minimal[value] else { return nil }
            switch stage {
            case .opened, .after: return [UInt8(ascii: "}")]
            case .comma: return Array("\"\":".utf8) + shortest + [UInt8(ascii: "}")]
            case .colon: return [UInt8(ascii: ":")] + shortest + [UInt8(ascii: "}")]
            case .value: return shortest + [UInt8(ascii: "}")]
            }
        case let .array(node, count, stage):
            guard case let .array(item, minimumCount, _) = grammar.nodes[Int(node)] else { return nil }
            var elementsLeft = max(minimumCount - Int(count), 0)
            var bytes: [UInt8] = []
            if case .comma = stage { elementsLeft = max(elementsLeft, 1) }
            if elementsLeft > 0 {
                guard let element = grammar.minimal[item] else { return nil }
                var needsComma = stage == .after
                for _ in 0..<elementsLeft {
                    if needsComma { bytes.append(UInt8(ascii: ",")) }
                    bytes += element
                    needsComma = true
                }
            }
            return bytes + [UInt8(ascii: "]")]
        case let .literal(index, written):
            return Array(CompiledGrammar.literals[Int(index)][Int(written)...])
        case let .anyString(phase):
            let character = phase.finishCharacter { $0.lowerBound }?.bytes ?? []
            return character + [UInt8(ascii: "\"")]
        case let .pattern(node, phase, states):
            guard case let .pattern(automaton) = grammar.nodes[Int(node)] else { return nil }
            var afterCharacter = states
            var bytes: [UInt8] = []
            if phase != .between {
                guard let finished = phase.finishCharacter(allowed: { automaton.bestStep(states, within: $0)?.scalar }) else {
                    return nil
                }
                bytes = finished.bytes
                afterCharacter = automaton.step(states, finished.scalar)
            }
            guard let rest = automaton.cheapestCompletion(from: afterCharacter) else { return nil }
            return bytes + rest + [UInt8(ascii: "\"")]
        case let .choice(node, first, last, written):
            guard case let .choices(spellings) = grammar.nodes[Int(node)] else { return nil }
            return spellings[Int(first)...Int(last)].min { $0.count < $1.count }.map { Array($0[Int(written)...]) }
        case let .number(node, prefix):
            guard case let .number(rule) = grammar.nodes[Int(node)] else { return nil }
            return prefix.shortestCompletion(rule: rule)
        }
    }

    private func objectRemainder(_ properties: [CompiledGrammar.Property], _ stage: ObjectStage) -> [UInt8]? {
        switch stage {
        case .opened:
            return requiredTail(properties, from: 0, needsComma: false)
        case let .after(property):
            return requiredTail(properties, from: Int(property) + 1, needsComma: true)
        case let .comma(nextProperty, _):
            // A key must follow the comma: the first required one, or else the cheapest optional one.
            let from = Int(nextProperty)
            if properties[from...].contains(where: { !$0.isOptional }) {
                return requiredTail(properties, from: from, needsComma: false)
            }
            let options = grammar.keyCandidates(properties, from: from).compactMap { candidate -> [UInt8]? in
                guard let value = grammar.minimal[properties[candidate].value] else { return nil }
                return properties[candidate].key + [UInt8(ascii: ":")] + value + [UInt8(ascii: "}")]
            }
            return options.min { $0.count < $1.count }
        case let .key(property, written):
            let entry = properties[Int(property)]
            guard let value = grammar.minimal[entry.value],
                  let tail = requiredTail(properties, from: Int(property) + 1, needsComma: true) else { return nil }
            return Array(entry.key[Int(written)...]) + [UInt8(ascii: ":")] + value + tail
        case let .colon(property):
            guard let value = grammar.minimal[properties[Int(property)].value],
                  let tail = requiredTail(properties, from: Int(property) + 1, needsComma: true) else { return nil }
            return [UInt8(ascii: ":")] + value + tail
        case let .value(property, _):
            guard let value = grammar.minimal[properties[Int(property)].value],
                  let tail = requiredTail(properties, from: Int(property) + 1, needsComma: true) else { return nil }
            return value + tail
        }
    }

    /// The required properties from `index` on with their shortest values, then `}`.
    private func requiredTail(_ properties: [CompiledGrammar.Property], from index: Int, needsComma: Bool) -> [UInt8]? {
        var bytes: [UInt8] = []
        var comma = needsComma
        for property in properties[index...] where !property.isOptional {
            guard let value = grammar.minimal[property.value] else { return nil }
            if comma { bytes.append(UInt8(ascii: ",")) }
            bytes += property.key + [UInt8(ascii: ":")] + value
            comma = true
        }
        return bytes + [UInt8(ascii: "}")]
    }
}
