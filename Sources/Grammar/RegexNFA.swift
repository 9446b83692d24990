// A Thompson automaton over Unicode scalars for one pattern, with the per-state distances that let a
// matcher name the cheapest way to finish a string (for forced completion).

/// A set of automaton states; patterns are capped at `RegexNFA.maximumStates` so it stays inline.
struct RegexStateSet: Sendable, Hashable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    static func == (a: RegexStateSet, b: RegexStateSet) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0); hasher.combine(words.1); hasher.combine(words.2); hasher.combine(words.3)
    }

    var isEmpty: Bool { (words.0 | words.1 | words.2 | words.3) == 0 }

    func contains(_ state: Int) -> Bool {
        let bit = UInt64(1) << UInt64(state & 63)
        switch state >> 6 {
        case 0: return words.0 & bit != 0
        case 1: return words.1 & bit != 0
        case 2: return words.2 & bit != 0
        default: return words.3 & bit != 0
        }
    }

    mutating func insert(_ state: Int) {
        let bit = UInt64(1) << UInt64(state & 63)
        switch state >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }

    mutating func formUnion(_ other: RegexStateSet) {
        words.0 |= other.words.0; words.1 |= other.words.1; words.2 |= other.words.2; words.3 |= other.words.3
    }
}

/// The automaton for one pattern: full-match semantics over Unicode scalars.
struct RegexNFA: Sendable {
    enum State: Sendable {
        case scalars(ScalarRanges, next: Int)
        case split(Int, Int)
        case accept
    }

    static let maximumStates = 256

    private(set) var states: [State] = [.accept]
    private let acceptState = 0
    /// States reachable from each state without consuming input (itself included).
    private var closures: [RegexStateSet] = []
    /// The set before any input.
    private(set) var start = RegexStateSet()
    /// Fewest JSON-string bytes from each state to acceptance (nil: acceptance unreachable).
    private var distances: [Int?] = []

    init(pattern: String) throws(GrammarError) {
        let tree = try RegexPattern.parse(pattern)
        let entry = try build(tree, next: acceptState, pattern: pattern)
        closures = states.indices.map { closure(of: $0) }
        start = closures[entry]
        distances = computeDistances()
    }

    /// Adds states for `tree` that continue to `next`; returns the entry state.
    private mutating func build(_ tree: RegexTree, next: Int, pattern: String) throws(GrammarError) -> Int {
        func add(_ state: State) throws(GrammarError) -> Int {
            guard states.count < RegexNFA.maximumStates else { throw .patternTooComplex(pattern: pattern) }
            states.append(state)
            return states.count - 1
        }
        switch tree {
        case let .scalars(set):
            return try add(.scalars(set, next: next))
        case let .sequence(items):
            var entry = next
            for item in items.reversed() { entry = try build(item, next: entry, pattern: pattern) }
            return entry
        case let .alternation(branches):
            var entry = try build(branches[branches.count - 1], next: next, pattern: pattern)
            for branch in branches.dropLast().reversed() {
                entry = try add(.split(try build(branch, next: next, pattern: pattern), entry))
            }
            return entry
        case let .repetition(body, minimum, maximum):
            var entry = next
            if let maximum {
                // Optional copies nest: x{0,2} is (x(x)?)?.
                for _ in 0..<(maximum - minimum) {
                    entry = try add(.split(try build(body, next: entry, pattern: pattern), next))
                }
            } else {
                let loop = try add(.split(next, next))  // patched once the body exists
                states[loop] = .split(try build(body, next: loop, pattern: pattern), next)
                entry = loop
            }
            for _ in 0..<minimum { entry = try build(body, next: entry, pattern: pattern) }
            return entry
        }
    }

    private func closure(of state: Int) -> RegexStateSet {
        var set = RegexStateSet()
        var pending = [state]
        while let s = pending.popLast() {
            if set.contains(s) { continue }
            set.insert(s)
            if case let .split(a, b) = states[s] { pending.append(a); pending.append(b) }
        }
        return set
    }

    /// Whether `set` has finished a full match.
    func accepts(_ set: RegexStateSet) -> Bool { set.contains(acceptState) }

    /// The states after reading `scalar` (empty: the string can no longer match). Steps into states
    /// that cannot reach acceptance are dropped, so a non-empty set can always be finished.
    func step(_ set: RegexStateSet, _ scalar: UInt32) -> RegexStateSet {
        var result = RegexStateSet()
        for (index, state) in states.enumerated() where set.contains(index) {
            if case let .scalars(members, next) = state, distances[next] != nil, members.contains(scalar) {
                result.formUnion(closures[next])
            }
        }
        return result
    }

    /// Whether some scalar in `bounds` can be read next (for a character still being spelled out).
    func canStep(_ set: RegexStateSet, within bounds: ClosedRange<UInt32>) -> Bool {
        bestStep(set, within: bounds) != nil
    }

    /// The scalar in `bounds` after which acceptance is cheapest, with the resulting set.
    func bestStep(_ set: RegexStateSet, within bounds: ClosedRange<UInt32>) -> (scalar: UInt32, after: RegexStateSet, distance: Int)? {
        var best: (scalar: UInt32, after: RegexStateSet, distance: Int)?
        for (index, state) in states.enumerated() where set.contains(index) {
            guard case let .scalars(members, next) = state, let scalar = members.smallest(in: bounds),
                  let distance = distances[next], distance < (best?.distance ?? .max) else { continue }
            best = (scalar, closures[next], distance)
        }
        return best
    }

    /// The cheapest bytes (JSON-string encoded) that take `set` to acceptance.
    func cheapestCompletion(from set: RegexStateSet) -> [UInt8]? {
        var current = states.indices.filter { set.contains($0) }.min { (distances[$0] ?? .max) < (distances[$1] ?? .max) }
        guard let first = current, distances[first] != nil else { return nil }
        var bytes: [UInt8] = []
        while let state = current {
            switch states[state] {
            case .accept:
                current = nil
            case let .split(a, b):
                current = (distances[a] ?? .max) <= (distances[b] ?? .max) ? a : b
            case let .scalars(members, next):
                if let (scalar, _) = members.cheapestInJSONString { bytes += jsonStringBytes(of: scalar) }
                current = next
            }
        }
        return bytes
    }

    /// Shortest distances to acceptance, relaxed to a fixed point (states are few).
    private func computeDistances() -> [Int?] {
        var distances = [Int?](repeating: nil, count: states.count)
        distances[acceptState] = 0
        var changed = true
        while changed {
            changed = false
            for (index, state) in states.enumerated() {
                let candidate: Int?
                switch state {
                case .accept: candidate = 0
                case let .split(a, b):
                    candidate = [distances[a], distances[b]].compactMap { $0 }.min()
                case let .scalars(members, next):
                    if let cost = members.cheapestInJSONString?.cost, let rest = distances[next] {
                        candidate = cost + rest
                    } else {
                        candidate = nil
                    }
                }
                if let candidate, candidate < (distances[index] ?? .max) {
                    distances[index] = candidate
                    changed = true
                }
            }
        }
        return distances
    }
}
