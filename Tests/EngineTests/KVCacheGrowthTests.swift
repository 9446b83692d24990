import Testing
@testable import Engine

/// The KV cache reserves address space for its capacity and commits memory as positions are
/// stored: huge capacities cost nothing up front, growth keeps every row in place, and a commit
/// the machine cannot hold is a typed error with the bytes it needs.
@Suite struct KVCacheGrowthTests {
    private func row(_ seed: Int, width: Int) -> [Float] { (0..<width).map { Float(($0 * 7 + seed * 13) % 23) / 23 - 0.5 } }

    @Test func aHugeCapacityCommitsOnlyWhatIsUsed() throws {
        let cache = KVCache(layers: 4, capacity: 1 << 32, kvDim: 64)
        #expect(cache.memoryBytes == 0)
        try cache.reserve(upTo: 3)
        #expect(cache.committed == KVCache.minimumCommit)
        #expect(cache.memoryBytes == 2 * 4 * KVCache.minimumCommit * 64 * 2)
        try cache.reserve(upTo: KVCache.minimumCommit + 1)
        #expect(cache.committed == 2 * KVCache.minimumCommit)
    }

    @Test func anAddressSpaceOverflowIsTyped() {
        let cache = KVCache(layers: 30, capacity: Int.max / 1024, kvDim: 192)
        #expect(throws: KVCacheError.cannotReserve(contextSize: Int.max / 1024, contextBytes: Int.max)) { try cache.reserve(upTo: 1) }
    }

    @Test func missingMemoryIsTypedWithTheBytesNeeded() throws {
        let cache = KVCache(layers: 2, capacity: 4096, kvDim: 32)
        cache.availableMemory = { 1000 }
        // 10 rows of 64 bytes round up to one 4 KiB page per layer half, four halves.
        #expect(throws: KVCacheError.outOfMemory(positions: 10, neededBytes: 4 * 4096, availableBytes: 1000)) {
            try cache.reserve(upTo: 10)
        }
        #expect(cache.committed == 0)
        // When the usual run of 256 positions (64 KiB in all) does not fit, only what is asked is committed.
        cache.availableMemory = { 4 * 4096 }
        try cache.reserve(upTo: 10)
        #expect(cache.committed == 10)
        cache.availableMemory = { 1 << 30 }
        try cache.reserve(upTo: 11)
        #expect(cache.committed == KVCache.minimumCommit)
    }

    /// Rows stored one position at a time across several commits attend exactly like rows stored
    /// into a cache committed whole up front.
    @Test func growthKeepsRowsInPlace() throws {
        let kvDim = 64, heads = 2, headDim = 32, n = 700
        let grown = KVCache(layers: 2, capacity: 4000, kvDim: kvDim)
        let whole = KVCache(layers: 2, capacity: 4000, kvDim: kvDim)
        try whole.reserve(upTo: 4000)
        let k = Matrix(rows: 1, columns: kvDim), v = Matrix(rows: 1, columns: kvDim)
        let context = ExecutionContext(maxRows: 1, maxK: 32)
        for p in 0..<n {
            k.setRow(0, row(p, width: kvDim))
            v.setRow(0, row(p + 1, width: kvDim))
            for cache in [grown, whole] {
                for layer in 0..<2 { cache.store(layer: layer, keys: k, values: v, rows: 1, positions: [p], context: context) }
                cache.commit(upTo: p + 1)
            }
        }
        #expect(grown.committed < whole.committed)
        let q = Matrix(rows: 1, columns: heads * headDim)
        q.setRow(0, row(5, width: heads * headDim))
        var scratch: [Float] = []
        let a = Matrix(rows: 1, columns: heads * headDim), b = Matrix(rows: 1, columns: heads * headDim)
        grown.attention(layer: 1, queries: q, rows: 1, positions: [n - 1], heads: heads, headDim: headDim, window: nil,
                        kind: .decoded, into: a, scratch: &scratch, context: context)
        whole.attention(layer: 1, queries: q, rows: 1, positions: [n - 1], heads: heads, headDim: headDim, window: nil,
                        kind: .decoded, into: b, scratch: &scratch, context: context)
        #expect(a.copyRow(0) == b.copyRow(0))
    }
}
