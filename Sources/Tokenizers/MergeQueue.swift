// The work queue shared by both merge loops: a binary min-heap of candidate merges between
// adjacent symbols of a doubly linked list. Stale entries (a side already merged away) are skipped
// when popped, so each merge costs O(log n) and a word of n symbols costs O(n log n) in total.

/// A candidate merge of symbol `left` with symbol `right`.
struct MergeCandidate {
    /// Sort key, smallest first: (priority << 32 | left). Ties on priority go to the leftmost pair.
    var key: UInt64
    var right: Int32
    /// Combined length of both sides when the candidate was made; a mismatch means it is stale.
    var size: Int32
}

struct MergeQueue {
    private(set) var items: [MergeCandidate] = []

    var isEmpty: Bool { items.isEmpty }

    mutating func removeAll() { items.removeAll(keepingCapacity: true) }

    mutating func push(_ c: MergeCandidate) {
        items.append(c)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) >> 1
            if items[parent].key <= c.key { break }
            items[i] = items[parent]
            i = parent
        }
        items[i] = c
    }

    mutating func pop() -> MergeCandidate {
        let top = items[0]
        let last = items.removeLast()
        let n = items.count
        if n > 0 {
            var i = 0
            while true {
                let l = 2 * i + 1
                if l >= n { break }
                let r = l + 1
                let child = (r < n && items[r].key < items[l].key) ? r : l
                if items[child].key >= last.key { break }
                items[i] = items[child]
                i = child
            }
            items[i] = last
        }
        return top
    }
}

/// The symbols being merged: a doubly linked list over a byte range each.
struct SymbolList {
    var start: [Int32] = []
    var length: [Int32] = []
    var prev: [Int32] = []
    var next: [Int32] = []
    /// Per-symbol payload: the piece id for BPE (unused by SentencePiece).
    var piece: [Int32] = []

    mutating func removeAll() {
        start.removeAll(keepingCapacity: true)
        length.removeAll(keepingCapacity: true)
        prev.removeAll(keepingCapacity: true)
        next.removeAll(keepingCapacity: true)
        piece.removeAll(keepingCapacity: true)
    }

    var count: Int { start.count }

    mutating func append(start s: Int, length l: Int, piece p: Int32 = -1) {
        let i = Int32(start.count)
        start.append(Int32(s))
        length.append(Int32(l))
        prev.append(i - 1)
        next.append(i + 1)
        piece.append(p)
    }

    /// Terminates the list (the last symbol's `next` is -1).
    mutating func close() {
        if !next.isEmpty { next[next.count - 1] = -1 }
    }

    /// Merges `right` into `left`.
    @inline(__always)
    mutating func merge(_ left: Int, _ right: Int) {
        length[left] += length[right]
        length[right] = 0
        let after = next[right]
        next[left] = after
        if after >= 0 { prev[Int(after)] = Int32(left) }
    }
}
