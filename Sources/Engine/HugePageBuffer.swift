#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory for a large array that the kernels stream whole on every token (repacked weights),
/// backed by 2 MiB transparent huge pages where Linux offers them.
///
/// Why: a decode step reads each weight byte once, so with 4 KiB pages every 4 KiB of a matrix
/// is a new translation, and the data TLB (a few thousand entries, ~16 MiB of reach) holds none
/// of a 1 GB model from one token to the next: the decode kernels' loads and software prefetches
/// wait on page walks. On an AMD Zen 5 (2 threads, one decode run with alternate layers in huge
/// and small pages) the huge-page layers streamed 5-23 % more bytes per cycle, by format and
/// path, at 1-4B shapes; a plain read of 1 GiB gains ~4 %.
///
/// The mapping starts on a 2 MiB boundary and is `madvise(MADV_HUGEPAGE)`d before anything is
/// written, so it is faulted in as huge pages even when the system's THP mode is `madvise`. Its
/// length is rounded up to the base page only: the tail past the last whole 2 MiB stays in small
/// pages, so a buffer is never resident for more than its bytes plus one base page. Buffers
/// below 2 MiB (which could not use a huge page) and other systems get an ordinary 64-byte-aligned
/// allocation.
public final class HugePageBuffer: @unchecked Sendable {
    /// Start of the buffer; 2 MiB-aligned when the buffer is huge-page backed.
    public let pointer: UnsafeMutableRawPointer
    /// Bytes asked for.
    public let byteCount: Int
    /// Length of the mapping (nil: a heap allocation).
    private let mappedBytes: Int?

    /// Bytes of one huge page (x86-64 and arm64 Linux with 4 KiB base pages).
    public static let hugePageBytes = 2 << 20
    /// The base page size: mappings are made, trimmed and unmapped in whole base pages.
    private static let pageBytes = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Uninitialized memory for `byteCount` (> 0) bytes.
    public init(byteCount: Int) {
        precondition(byteCount > 0, "a huge-page buffer holds at least one byte")
        self.byteCount = byteCount
        #if os(Linux)
        if byteCount >= Self.hugePageBytes, let (start, length) = Self.mapAligned(byteCount) {
            pointer = start
            mappedBytes = length
            return
        }
        #endif
        pointer = .allocate(byteCount: byteCount, alignment: 64)
        mappedBytes = nil
    }

    deinit {
        if let mappedBytes { munmap(pointer, mappedBytes) } else { pointer.deallocate() }
    }

    #if os(Linux)
    /// An anonymous mapping of `bytes` rounded up to the base page, starting on a 2 MiB boundary, marked
    /// for huge pages: maps 2 MiB more than needed and unmaps the misaligned head and the tail.
    private static func mapAligned(_ bytes: Int) -> (UnsafeMutableRawPointer, Int)? {
        let length = (bytes + pageBytes - 1) & ~(pageBytes - 1)
        guard let raw = mmap(nil, length + hugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              raw != MAP_FAILED else { return nil }
        let address = UInt(bitPattern: raw)
        let aligned = (address + UInt(hugePageBytes) - 1) & ~UInt(hugePageBytes - 1)
        let head = Int(aligned - address), tail = hugePageBytes - head
        if head > 0 { munmap(raw, head) }
        let start = UnsafeMutableRawPointer(bitPattern: aligned)!
        if tail > 0 { munmap(start + length, tail) }
        // Advice only: where THP is off the buffer is simply in small pages.
        _ = madvise(start, length, MADV_HUGEPAGE)
        return (start, length)
    }
    #endif
}
