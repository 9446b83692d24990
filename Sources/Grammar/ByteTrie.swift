// A prefix tree over token byte strings, flattened into arrays so a mask walk touches no
// reference-counted objects: tokens that share leading bytes are checked once for those bytes.

/// An immutable byte trie over a set of tokens.
struct ByteTrie: Sendable {
    /// Per node: its first outgoing edge and how many it has (edges are sorted by byte).
    private(set) var edgeStart: [Int32] = []
    private(set) var edgeCount: [Int32] = []
    /// Per node: the tokens whose bytes end exactly here.
    private(set) var tokenStart: [Int32] = []
    private(set) var tokenCount: [Int32] = []
    private(set) var edgeByte: [UInt8] = []
    private(set) var edgeTarget: [Int32] = []
    private(set) var tokenIDs: [Int32] = []

    static let root = 0

    /// A trie of `tokens` (ids with non-empty byte strings).
    init(tokens: [Int32], bytes: [[UInt8]]) {
        let sorted = tokens.sorted { bytes[Int($0)].lexicographicallyPrecedes(bytes[Int($1)]) }
        _ = addNode(sorted[...], depth: 0, bytes: bytes)
    }

    /// Adds the node for `tokens` (all sharing their first `depth` bytes) and its subtree; returns its index.
    private mutating func addNode(_ tokens: ArraySlice<Int32>, depth: Int, bytes: [[UInt8]]) -> Int32 {
        let node = Int32(edgeStart.count)
        var rest = tokens[...]
        // Sorted order puts the tokens that end at this depth first.
        let ending = rest.prefix { bytes[Int($0)].count == depth }
        rest = rest.dropFirst(ending.count)
        tokenStart.append(Int32(tokenIDs.count))
        tokenCount.append(Int32(ending.count))
        tokenIDs += ending
        var groups: [(UInt8, ArraySlice<Int32>)] = []
        while let first = rest.first {
            let byte = bytes[Int(first)][depth]
            let group = rest.prefix { bytes[Int($0)][depth] == byte }
            groups.append((byte, group))
            rest = rest.dropFirst(group.count)
        }
        edgeStart.append(Int32(edgeByte.count))
        edgeCount.append(Int32(groups.count))
        // Reserve this node's edges contiguously, then fill in targets as children are built.
        edgeByte += groups.map(\.0)
        edgeTarget += [Int32](repeating: 0, count: groups.count)
        for (offset, group) in groups.enumerated() {
            let child = addNode(group.1, depth: depth + 1, bytes: bytes)
            edgeTarget[Int(edgeStart[Int(node)]) + offset] = child
        }
        return node
    }

    /// The child of `node` along `byte`, if any.
    func child(of node: Int, byte: UInt8) -> Int? {
        let start = Int(edgeStart[node])
        for edge in start..<(start + Int(edgeCount[node])) where edgeByte[edge] == byte { return Int(edgeTarget[edge]) }
        return nil
    }

    /// The tokens ending at `node`.
    func tokens(at node: Int) -> ArraySlice<Int32> {
        let start = Int(tokenStart[node])
        return tokenIDs[start..<(start + Int(tokenCount[node]))]
    }
}
