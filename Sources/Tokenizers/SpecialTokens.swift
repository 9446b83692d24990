// Carving special-token text out of raw input (llama.cpp's `tokenizer_st_partition`).
//
// llama.cpp takes the special tokens longest first and, for each one, splits every remaining
// raw-text fragment at its leftmost non-overlapping occurrences. Doing that literally costs
// (number of special tokens) x (text length): 6k+ passes for Gemma. Here a byte trie finds every
// occurrence of every special token in one pass, and the occurrences are then accepted in the
// same priority order with the same rules, which gives the identical partition.

/// A piece of input after special-token partitioning.
enum Fragment: Equatable {
    /// Raw text bytes `range` of the input, to be tokenized normally.
    case text(Range<Int>)
    /// A special token found in the text.
    case token(Int32)
}

/// Finds special tokens in text. Built once per vocabulary.
struct SpecialTokenMatcher: Sendable {
    /// Trie edges: `node << 8 | byte` -> child node. Node 0 is the root.
    private var edges: [Int: Int32] = [:]
    /// Root edges as a flat table, for the common "no special token starts here" case.
    private var rootEdges = [Int32](repeating: -1, count: 256)
    /// For each node: the priority (index into `tokens`) of the token ending there, or -1.
    private var terminal: [Int32] = [-1]
    /// Special tokens in priority order (longest first) and whether each is split out when
    /// `parseSpecial` is off (user-defined tokens are; control and unknown tokens are not).
    let tokens: [Int32]
    private let lengths: [Int32]
    private let alwaysSplit: [Bool]

    init(vocabulary v: Vocabulary) {
        tokens = v.specialTokens
        lengths = tokens.map { v.starts[Int($0) + 1] - v.starts[Int($0)] }
        alwaysSplit = tokens.map { v.attributes[Int($0)].intersection([.control, .unknown]).isEmpty }
        for (priority, id) in tokens.enumerated() {
            var node: Int32 = 0
            v.withText(id) { text in
                for b in text {
                    if node == 0 {
                        if rootEdges[Int(b)] < 0 {
                            rootEdges[Int(b)] = Int32(terminal.count)
                            terminal.append(-1)
                        }
                        node = rootEdges[Int(b)]
                        continue
                    }
                    let key = Int(node) << 8 | Int(b)
                    if let child = edges[key] {
                        node = child
                    } else {
                        let child = Int32(terminal.count)
                        terminal.append(-1)
                        edges[key] = child
                        node = child
                    }
                }
            }
            // Duplicate texts cannot occur (the text table keeps one id per text), but keep the
            // first (highest-priority) one if they did.
            if node != 0 && terminal[Int(node)] < 0 { terminal[Int(node)] = Int32(priority) }
        }
    }

    /// Splits `text` into raw fragments and special tokens. With `parseSpecial`, control-token
    /// text becomes its token except where it overlaps one of `literalRanges` (byte offsets:
    /// user content that a template embedded, which must never turn into control tokens).
    func partition(_ text: UnsafeBufferPointer<UInt8>, parseSpecial: Bool, literalRanges: [Range<Int>] = []) -> [Fragment] {
        let n = text.count
        if n == 0 { return [] }
        // literalBefore[i] = literal bytes in 0..<i, so an overlap test is two lookups.
        var literalBefore: [Int32] = []
        if parseSpecial && !literalRanges.isEmpty {
            var literal = [Bool](repeating: false, count: n)
            for r in literalRanges { for i in max(0, r.lowerBound)..<min(n, r.upperBound) { literal[i] = true } }
            literalBefore = [Int32](repeating: 0, count: n + 1)
            for i in 0..<n { literalBefore[i + 1] = literalBefore[i] + (literal[i] ? 1 : 0) }
        }
        // Every occurrence, as (priority << 32 | position).
        var matches: [UInt64] = []
        for p in 0..<n {
            var node = rootEdges[Int(text[p])]
            var q = p + 1
            while node >= 0 {
                let t = terminal[Int(node)]
                if t >= 0 && (alwaysSplit[Int(t)]
                    || parseSpecial && (literalBefore.isEmpty || literalBefore[q] == literalBefore[p])) {
                    matches.append(UInt64(t) << 32 | UInt64(p))
                }
                if q >= n { break }
                node = edges[Int(node) << 8 | Int(text[q])] ?? -1
                q += 1
            }
        }
        if matches.isEmpty { return [.text(0..<n)] }
        matches.sort()

        // Accept in priority order: an occurrence is taken if it lies wholly in still-raw text and
        // does not overlap the previous accepted occurrence of the same token.
        var taken = [Bool](repeating: false, count: n)
        var accepted: [(position: Int, priority: Int)] = []
        var currentPriority = -1
        var lastEnd = 0
        for m in matches {
            let priority = Int(m >> 32), position = Int(m & 0xFFFF_FFFF)
            if priority != currentPriority {
                currentPriority = priority
                lastEnd = 0
            }
            let length = Int(lengths[priority])
            if position < lastEnd { continue }
            var free = true
            for k in position..<(position + length) where taken[k] { free = false; break }
            if !free { continue }
            for k in position..<(position + length) { taken[k] = true }
            lastEnd = position + length
            accepted.append((position, priority))
        }
        accepted.sort { $0.position < $1.position }
        var fragments: [Fragment] = []
        var cursor = 0
        for a in accepted {
            if a.position > cursor { fragments.append(.text(cursor..<a.position)) }
            fragments.append(.token(tokens[a.priority]))
            cursor = a.position + Int(lengths[a.priority])
        }
        if cursor < n { fragments.append(.text(cursor..<n)) }
        return fragments
    }
}
