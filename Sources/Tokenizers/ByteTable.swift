// A byte-exact string -> id hash table.
//
// Vocabulary lookups must compare raw UTF-8 bytes: Swift `String` equality uses canonical
// equivalence ("é" == "e\u{301}"), which would merge distinct tokens. All strings live in one
// contiguous byte buffer, and the table is open-addressed over Int32 slots, so building it for a
// 262k-token vocabulary is a single pass with no per-token allocation.

/// Maps byte strings to dense Int32 ids. Inserting an existing string replaces its id, matching
/// llama.cpp's `token_to_id[word] = i` (the last duplicate wins).
struct ByteTable: Sendable {
    /// All strings, back to back.
    private(set) var storage: [UInt8] = []
    /// `starts[i]..<starts[i+1]` is string i in `storage` (strings are numbered by insertion).
    private(set) var starts: [Int32] = [0]
    /// The id each stored string maps to.
    private var ids: [Int32] = []
    /// Open-addressed slots holding a string index, or -1.
    private var slots: [Int32]
    private var mask: Int

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = Array(repeating: -1, count: size)
        mask = size - 1
        storage.reserveCapacity(capacity * 8)
        starts.reserveCapacity(capacity + 1)
        ids.reserveCapacity(capacity)
    }

    var count: Int { ids.count }

    /// FNV-1a over the bytes, finished with a multiply-xorshift so low bits are well mixed.
    @inline(__always)
    static func hash(_ p: UnsafeBufferPointer<UInt8>) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in p { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        h ^= h >> 29
        h = h &* 0xbf58_476d_1ce4_e5b9
        h ^= h >> 32
        return Int(truncatingIfNeeded: h)
    }

    /// Inserts `bytes` -> `id`, replacing the id if the string is already present.
    mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, id: Int32) {
        if (ids.count + 1) * 2 > slots.count { grow() }
        let h = ByteTable.hash(bytes)
        var i = h & mask
        while true {
            let s = slots[i]
            if s < 0 {
                slots[i] = Int32(ids.count)
                storage.append(contentsOf: bytes)
                starts.append(Int32(storage.count))
                ids.append(id)
                return
            }
            if equals(Int(s), bytes) {
                ids[Int(s)] = id
                return
            }
            i = (i + 1) & mask
        }
    }

    mutating func insert(_ bytes: [UInt8], id: Int32) {
        bytes.withUnsafeBufferPointer { insert($0, id: id) }
    }

    /// The id of `bytes`, or -1.
    @inline(__always)
    func lookup(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        var i = ByteTable.hash(bytes) & mask
        return slots.withUnsafeBufferPointer { slots in
            while true {
                let s = slots[i]
                if s < 0 { return -1 }
                if equals(Int(s), bytes) { return ids[Int(s)] }
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
        let size = slots.count * 2
        var newSlots = [Int32](repeating: -1, count: size)
        let newMask = size - 1
        storage.withUnsafeBufferPointer { st in
            for s in 0..<ids.count {
                let a = Int(starts[s]), b = Int(starts[s + 1])
                var i = ByteTable.hash(UnsafeBufferPointer(rebasing: st[a..<b])) & newMask
                while newSlots[i] >= 0 { i = (i + 1) & newMask }
                newSlots[i] = Int32(s)
            }
        }
        slots = newSlots
        mask = newMask
    }
}
