// The byte-level pushdown matcher for a `JSONGrammar`: it tracks every parse the bytes so far allow
// and rejects a byte that no parse can take.

/// Matches a document of a `JSONGrammar` byte by byte. A value type: copying it is the checkpoint,
/// which is what mask exploration relies on.
public struct JSONMatcher: Sendable {
    let grammar: CompiledGrammar
    /// Every parse consistent with the bytes so far (never empty; no duplicates).
    private(set) var stacks: [ParseStack]

    /// A matcher at the start of the document; throws for schemas or patterns that cannot be enforced.
    public init(grammar: JSONGrammar) throws(GrammarError) {
        self.init(compiled: try CompiledGrammar(grammar))
    }

    init(compiled: CompiledGrammar) {
        grammar = compiled
        stacks = [ParseStack(frames: [.document(.prefix(written: 0))])]
    }

    /// Feeds one byte; returns false (leaving the matcher unchanged) if no valid document continues with it.
    @discardableResult
    public mutating func feed(_ byte: UInt8) -> Bool {
        var next: [ParseStack] = []
        next.reserveCapacity(stacks.count)
        for stack in stacks { advance(stack, byte, into: &next) }
        guard !next.isEmpty else { return false }
        stacks = next
        return true
    }

    /// Feeds bytes in order; returns false (leaving the matcher unchanged) at the first rejected one.
    @discardableResult
    public mutating func feed<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        var copy = self
        for byte in bytes where !copy.feed(byte) { return false }
        self = copy
        return true
    }

    /// Whether prefix, value and suffix have all been written. (A root number with no suffix is
    /// complete as soon as it is in range, though more digits would still feed; `ConstrainedDecoder`
    /// ends the document there.)
    public var isComplete: Bool { stacks.contains { isFinished($0) } }

    /// Whether some parse is inside an unconstrained string between characters: then any token made
    /// only of plain string bytes is allowed (the mask's fast path).
    var isBetweenCharactersOfFreeString: Bool {
        stacks.contains { $0.frames.last == .anyString(.between) }
    }

    /// The scan phase when the only parse is inside an unconstrained string: then bytes can be checked
    /// with the string scanner alone until a closing quote.
    var soleFreeStringPhase: StringScanPhase? {
        guard stacks.count == 1, case let .anyString(phase)? = stacks[0].frames.last else { return nil }
        return phase
    }

    private func isFinished(_ stack: ParseStack) -> Bool {
        var frames = stack.frames[...]
        if case let .number(node, prefix)? = frames.last {
            guard case let .number(rule) = grammar.nodes[Int(node)], prefix.isValidEnd(rule: rule) else { return false }
            frames = frames.dropLast()
        }
        return frames.count == 1 && frames.last == .document(.suffix(written: Int32(grammar.suffix.count)))
    }

    private func keep(_ stack: ParseStack, in next: inout [ParseStack]) {
        if !next.contains(stack) { next.append(stack) }
    }

    // MARK: - Transitions

    private func advance(_ stack: ParseStack, _ byte: UInt8, into next: inout [ParseStack]) {
        guard let top = stack.frames.last else { return }
        var stack = stack
        let space = UInt8(ascii: " ")
        switch top {
        case let .document(.prefix(written)):
            if Int(written) < grammar.prefix.count {
                guard grammar.prefix[Int(written)] == byte else { return }
                stack.frames[stack.frames.count - 1] = .document(.prefix(written: written + 1))
                keep(stack, in: &next)
            } else {
                stack.frames[stack.frames.count - 1] = .document(.suffix(written: 0))
                startValue(grammar.root, stack, byte, into: &next)
            }
        case let .document(.suffix(written)):
            guard Int(written) < grammar.suffix.count, grammar.suffix[Int(written)] == byte else { return }
            stack.frames[stack.frames.count - 1] = .document(.suffix(written: written + 1))
            keep(stack, in: &next)
        case let .literal(index, written):
            let literal = CompiledGrammar.literals[Int(index)]
            guard literal[Int(written)] == byte else { return }
            if Int(written) + 1 == literal.count { stack.frames.removeLast() } else {
                stack.frames[stack.frames.count - 1] = .literal(index: index, written: written + 1)
            }
            keep(stack, in: &next)
        case let .object(node, stage):
            advanceObject(stack, node: node, stage: stage, byte, into: &next)
        case let .dictionary(node, stage):
            advanceDictionary(stack, node: node, stage: stage, byte, into: &next)
        case let .array(node, count, stage):
            guard case let .array(item, minimumCount, maximumCount) = grammar.nodes[Int(node)] else { return }
            let canAddElement = Int(count) < (maximumCount ?? .max) && grammar.minimal[item] != nil
            func replaceTop(_ frame: ParseFrame) { stack.frames[stack.frames.count - 1] = frame }
            switch stage {
            case let .opened(spaced), let .comma(spaced):
                let isOpen = if case .opened = stage { true } else { false }
                if byte == space, !spaced {
                    replaceTop(.array(node: node, count: count, stage: isOpen ? .opened(spaced: true) : .comma(spaced: true)))
                    keep(stack, in: &next)
                } else if isOpen, byte == UInt8(ascii: "]"), minimumCount == 0 {
                    stack.frames.removeLast()
                    keep(stack, in: &next)
                } else if canAddElement {
                    replaceTop(.array(node: node, count: count + 1, stage: .after))
                    startValue(item, stack, byte, into: &next)
                }
            case .after:
                if byte == UInt8(ascii: ","), Int(count) < (maximumCount ?? .max), grammar.minimal[item] != nil {
                    replaceTop(.array(node: node, count: count, stage: .comma(spaced: false)))
                    keep(stack, in: &next)
                } else if byte == UInt8(ascii: "]"), Int(count) >= minimumCount {
                    stack.frames.removeLast()
                    keep(stack, in: &next)
                }
            }
        case let .anyString(phase):
            switch phase.scan(byte) {
            case .rejected: return
            case .closed: stack.frames.removeLast()
            case .scalar: stack.frames[stack.frames.count - 1] = .anyString(.between)
            case let .partial(phase, _): stack.frames[stack.frames.count - 1] = .anyString(phase)
            }
            keep(stack, in: &next)
        case let .pattern(node, phase, states):
            guard case let .pattern(automaton) = grammar.nodes[Int(node)] else { return }
            switch phase.scan(byte) {
            case .rejected: return
            case .closed:
                guard automaton.accepts(states) else { return }
                stack.frames.removeLast()
            case let .scalar(scalar):
                let after = automaton.step(states, scalar)
                guard !after.isEmpty else { return }
                stack.frames[stack.frames.count - 1] = .pattern(node: node, phase: .between, states: after)
            case let .partial(phase, possible):
                guard automaton.canStep(states, within: possible) else { return }
                stack.frames[stack.frames.count - 1] = .pattern(node: node, phase: phase, states: states)
            }
            keep(stack, in: &next)
        case let .choice(node, first, last, written):
            guard case let .choices(spellings) = grammar.nodes[Int(node)] else { return }
            let position = Int(written)
            let matching = (Int(first)...Int(last)).filter { position < spellings[$0].count && spellings[$0][position] == byte }
            guard let low = matching.first, let high = matching.last else { return }
            if position + 1 == spellings[low].count {
                stack.frames.removeLast()  // the closing quote: spellings are prefix-free
            } else {
                stack.frames[stack.frames.count - 1] = .choice(node: node, first: Int32(low), last: Int32(high), written: written + 1)
            }
            keep(stack, in: &next)
        case let .number(node, prefix):
            guard case let .number(rule) = grammar.nodes[Int(node)] else { return }
            if let longer = prefix.appending(byte, rule: rule) {
                stack.frames[stack.frames.count - 1] = .number(node: node, longer)
                keep(stack, in: &next)
            } else if prefix.isValidEnd(rule: rule), !isNumberByte(byte) {
                // A number ends at the first byte that is not part of it; that byte belongs to the parent.
                stack.frames.removeLast()
                advance(stack, byte, into: &next)
            }
        }
    }

    private func isNumberByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private func advanceObject(_ stack: ParseStack, node: Int32, stage: ObjectStage, _ byte: UInt8, into next: inout [ParseStack]) {
        guard case let .object(properties) = grammar.nodes[Int(node)] else { return }
        var stack = stack
        func replaceTop(_ stage: ObjectStage) { stack.frames[stack.frames.count - 1] = .object(node: node, stage: stage) }
        let space = UInt8(ascii: " ")
        switch stage {
        case let .opened(spaced):
            if byte == space, !spaced {
                replaceTop(.opened(spaced: true))
                keep(stack, in: &next)
            } else if byte == UInt8(ascii: "}"), grammar.canClose(properties, from: 0) {
                stack.frames.removeLast()
                keep(stack, in: &next)
            } else {
                startKeys(stack, node: node, properties: properties, from: 0, byte, into: &next)
            }
        case let .comma(nextProperty, spaced):
            if byte == space, !spaced {
                replaceTop(.comma(nextProperty: nextProperty, spaced: true))
                keep(stack, in: &next)
            } else {
                startKeys(stack, node: node, properties: properties, from: Int(nextProperty), byte, into: &next)
            }
        case let .key(property, written):
            let key = properties[Int(property)].key
            guard key[Int(written)] == byte else { return }
            replaceTop(Int(written) + 1 == key.count ? .colon(property: property) : .key(property: property, written: written + 1))
            keep(stack, in: &next)
        case let .colon(property):
            guard byte == UInt8(ascii: ":") else { return }
            replaceTop(.value(property: property, spaced: false))
            keep(stack, in: &next)
        case let .value(property, spaced):
            if byte == space, !spaced {
                replaceTop(.value(property: property, spaced: true))
                keep(stack, in: &next)
            } else {
                replaceTop(.after(property: property))
                startValue(properties[Int(property)].value, stack, byte, into: &next)
            }
        case let .after(property):
            let following = Int(property) + 1
            if byte == UInt8(ascii: ","), !grammar.keyCandidates(properties, from: following).isEmpty {
                replaceTop(.comma(nextProperty: Int32(following), spaced: false))
                keep(stack, in: &next)
            } else if byte == UInt8(ascii: "}"), grammar.canClose(properties, from: following) {
                stack.frames.removeLast()
                keep(stack, in: &next)
            }
        }
    }

    private func advanceDictionary(_ stack: ParseStack, node: Int32, stage: DictionaryStage, _ byte: UInt8,
                                   into next: inout [ParseStack]) {
        guard case let .dictionary(value) = grammar.nodes[Int(node)] else { return }
        var stack = stack
        func replaceTop(_ stage: DictionaryStage) { stack.frames[stack.frames.count - 1] = .dictionary(node: node, stage: stage) }
        let space = UInt8(ascii: " ")
        switch stage {
        case let .opened(spaced), let .comma(spaced):
            let isOpen = if case .opened = stage { true } else { false }
            if byte == space, !spaced {
                replaceTop(isOpen ? .opened(spaced: true) : .comma(spaced: true))
                keep(stack, in: &next)
            } else if isOpen, byte == UInt8(ascii: "}") {
                stack.frames.removeLast()
                keep(stack, in: &next)
            } else if byte == UInt8(ascii: "\""), grammar.minimal[value] != nil {
                // The key is any string; when it closes, its frame pops and the colon is next.
                replaceTop(.colon)
                stack.frames.append(.anyString(.between))
                keep(stack, in: &next)
            }
        case .colon:
            guard byte == UInt8(ascii: ":") else { return }
            replaceTop(.value(spaced: false))
            keep(stack, in: &next)
        case let .value(spaced):
            if byte == space, !spaced {
                replaceTop(.value(spaced: true))
                keep(stack, in: &next)
            } else {
                replaceTop(.after)
                startValue(value, stack, byte, into: &next)
            }
        case .after:
            if byte == UInt8(ascii: ",") {
                replaceTop(.comma(spaced: false))
                keep(stack, in: &next)
            } else if byte == UInt8(ascii: "}") {
                stack.frames.removeLast()
                keep(stack, in: &next)
            }
        }
    }

    /// A key starts: one parse per property that may come next (keys may share a prefix).
    private func startKeys(_ stack: ParseStack, node: Int32, properties: [CompiledGrammar.Property], from index: Int,
                           _ byte: UInt8, into next: inout [ParseStack]) {
        guard byte == UInt8(ascii: "\"") else { return }
        for candidate in grammar.keyCandidates(properties, from: index) {
            var forked = stack
            forked.frames[forked.frames.count - 1] = .object(node: node, stage: .key(property: Int32(candidate), written: 1))
            keep(forked, in: &next)
        }
    }

    /// A value of `node` starts with `byte`: one parse per alternative that can begin that way.
    private func startValue(_ node: Int, _ stack: ParseStack, _ byte: UInt8, into next: inout [ParseStack]) {
        for alternative in grammar.alternatives[node] {
            var pushed = stack
            let index = Int32(alternative)
            switch grammar.nodes[alternative] {
            case .object:
                guard byte == UInt8(ascii: "{") else { continue }
                pushed.frames.append(.object(node: index, stage: .opened(spaced: false)))
            case .dictionary:
                guard byte == UInt8(ascii: "{") else { continue }
                pushed.frames.append(.dictionary(node: index, stage: .opened(spaced: false)))
            case .array:
                guard byte == UInt8(ascii: "[") else { continue }
                pushed.frames.append(.array(node: index, count: 0, stage: .opened(spaced: false)))
            case .anyString:
                guard byte == UInt8(ascii: "\"") else { continue }
                pushed.frames.append(.anyString(.between))
            case let .pattern(automaton):
                guard byte == UInt8(ascii: "\"") else { continue }
                pushed.frames.append(.pattern(node: index, phase: .between, states: automaton.start))
            case let .choices(spellings):
                guard byte == UInt8(ascii: "\"") else { continue }
                pushed.frames.append(.choice(node: index, first: 0, last: Int32(spellings.count - 1), written: 0))
            case let .number(rule):
                guard let prefix = NumberPrefix().appending(byte, rule: rule) else { continue }
                pushed.frames.append(.number(node: index, prefix))
            case .boolean:
                guard byte == UInt8(ascii: "t") || byte == UInt8(ascii: "f") else { continue }
                pushed.frames.append(.literal(index: byte == UInt8(ascii: "t") ? 0 : 1, written: 1))
            case .null:
                guard byte == UInt8(ascii: "n") else { continue }
                pushed.frames.append(.literal(index: 2, written: 1))
            case .anyOf:
                continue  // `alternatives` never lists these
            }
            keep(pushed, in: &next)
        }
    }
}
