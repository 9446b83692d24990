// A byte-exact string -> id hash table.
//
// Vocabulary lookups must compare raw UTF-8 bytes: Swift `String` equality uses canonical
// equivalence ("é" == "e\u{301}"), which would merge distinct tokens. All strings live in one
// contiguous byte buffer. Slots hold a 32-bit hash tag next to the string index, so a probe
// that misses never touches the string data. The bulk build inserts strings in slot order
// (a counting sort by home slot), which keeps the 262k-token Gemma build cache-friendly.

/// Maps byte strings to Int32 ids. When a string occurs twice the later one wins, matching
/// llama.cpp's `token_to_id[word] = i`.
struct ByteTable: Sendable {
    /// All strings, back to back; string i is `storage[starts[i]..<starts[i+1]]`.
    private(set) var storage: [UInt8]
    private(set) var starts: [Int32]
    /// The id of each string.
    private var ids: [Int32]
    /// `tag << 32 | (string index + 1)`, or 0 for an empty slot.
    private var slots: [UInt64]
    private var mask: Int

    /// Builds the table over strings `0..<starts.count-1` of `storage`, string i -> `ids[i]`.
    init(storage: [UInt8], starts: [Int32], ids: [Int32]) {
        self.storage = storage
        self.starts = starts
        self.ids = ids
        let n = ids.count
        var size = 16
        while size < n * 2 { size <<= 1 }
        mask = size - 1
        slots = [UInt64](repeating: 0, count: size)
        var hashes = [UInt64](repeating: 0, count: n)
        storage.withUnsafeBufferPointer { st in
            for i in 0..<n {
                hashes[i] = ByteTable.hash(UnsafeBufferPointer(rebasing: st[Int(starts[i])..<Int(starts[i + 1])]))
            }
        }
        // Counting sort by home-slot group (stable, so later duplicates come later). Groups of
        // 128 slots keep the counts small and the placement pass walking memory forward.
        var groupShift = 0
        while (size >> groupShift) > 4096 { groupShift += 1 }
        let groups = size >> groupShift
        var counts = [Int32](repeating: 0, count: groups + 1)
        for h in hashes { counts[Int(h & UInt64(mask)) >> groupShift + 1] += 1 }
        for g in 0..<groups { counts[g + 1] += counts[g] }
        var order = [Int32](repeating: 0, count: n)
        var orderedHashes = [UInt64](repeating: 0, count: n)
        for i in 0..<n {
            let g = Int(hashes[i] & UInt64(mask)) >> groupShift
            let at = Int(counts[g])
            order[at] = Int32(i)
            orderedHashes[at] = hashes[i]
            counts[g] += 1
        }
        for k in 0..<n { place(Int(order[k]), hash: orderedHashes[k]) }
    }

    /// An empty table with room for `capacity` strings before it grows.
    init(capacity: Int) {
        self.init(storage: [], starts: [0], ids: [])
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
    }

    var count: Int { ids.count }

    /// FNV-1a over the bytes, finished with a multiply-xorshift so all bits are mixed.
    @inline(__always)
    static func hash(_ p: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in p { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        h ^= h >> 29
        h = h &* 0xbf58_476d_1ce4_e5b9
        h ^= h >> 32
        return h
    }

    /// Puts string `index` into its slot, replacing an equal string already present.
    private mutating func place(_ index: Int, hash: UInt64) {
        let tag = hash >> 32
        var i = Int(hash & UInt64(mask))
        let a = Int(starts[index]), b = Int(starts[index + 1])
        while true {
            let s = slots[i]
            if s == 0 {
                slots[i] = tag << 32 | UInt64(index + 1)
                return
            }
            if s >> 32 == tag {
                let other = Int(s & 0xFFFF_FFFF) - 1
                let equal = storage.withUnsafeBufferPointer { st in
                    equals(other, UnsafeBufferPointer(rebasing: st[a..<b]))
                }
                if equal {
                    slots[i] = tag << 32 | UInt64(index + 1)
                    return
                }
            }
            i = (i + 1) & mask
        }
    }

    /// Inserts `bytes` -> `id` (the id replaces an existing equal string's).
    mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, id: Int32) {
        if (ids.count + 1) * 2 > slots.count { grow() }
        storage.append(contentsOf: bytes)
        starts.append(Int32(storage.count))
        ids.append(id)
        place(ids.count - 1, hash: ByteTable.hash(bytes))
    }

    mutating func insert(_ bytes: [UInt8], id: Int32) {
        bytes.withUnsafeBufferPointer { insert($0, id: id) }
    }

    /// The id of `bytes`, or -1.
    @inline(__always)
    func lookup(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        let h = ByteTable.hash(bytes)
        let tag = h >> 32
        var i = Int(h & UInt64(mask))
        return slots.withUnsafeBufferPointer { slots in
            while true {
                let s = slots[i]
                if s == 0 { return -1 }
                if s >> 32 == tag {
                    let index = Int(s & 0xFFFF_FFFF) - 1
                    if equals(index, bytes) { return ids[index] }
                }
                i = (i + 1) & mask
            }
        }
    }

    func lookup(_ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBufferPointer { lookup($0) }
    }

    @inline(__always)
    private func equals(_ index: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let a = Int(starts[index]), b = Int(starts[index + 1])
        if b - a != bytes.count { return false }
        return storage.withUnsafeBufferPointer { st in
            for k in 0..<bytes.count where st[a + k] != bytes[k] { return false }
            return true
        }
    }

    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        mask = slots.count - 1
        storage.withUnsafeBufferPointer { st in
            for s in old where s != 0 {
                let index = Int(s & 0xFFFF_FFFF) - 1
                let h = ByteTable.hash(UnsafeBufferPointer(rebasing: st[Int(starts[index])..<Int(starts[index + 1])]))
                var i = Int(h & UInt64(mask))
                while slots[i] != 0 { i = (i + 1) & mask }
                slots[i] = s
            }
        }
    }
}

/// An open-addressed UInt64 -> UInt64 map for the BPE merge table (hot in the merge loop).
struct PairTable: Sendable {
    private var keys: [UInt64]
    private var values: [UInt64]
    private var used: [Bool]
    private let mask: Int

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        keys = [UInt64](repeating: 0, count: size)
        values = [UInt64](repeating: 0, count: size)
        used = [Bool](repeating: false, count: size)
        mask = size - 1
    }

    @inline(__always)
    private static func slot(_ key: UInt64) -> Int {
        var h = key &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 31
        return Int(truncatingIfNeeded: h)
    }

    /// Inserts unless the key exists (the first value wins).
    mutating func insertIfAbsent(_ key: UInt64, _ value: UInt64) {
        var i = PairTable.slot(key) & mask
        while used[i] {
            if keys[i] == key { return }
            i = (i + 1) & mask
        }
        used[i] = true
        keys[i] = key
        values[i] = value
    }

    @inline(__always)
    func find(_ key: UInt64) -> UInt64? {
        var i = PairTable.slot(key) & mask
        while used[i] {
            if keys[i] == key { return values[i] }
            i = (i + 1) & mask
        }
        return nil
    }
}
