import Foundation
import Testing
@testable import Engine

/// Large streamed arrays (repacked weights) live in mappings that start on a 2 MiB boundary and
/// carry the kernel's huge-page advice, so Linux backs them with 2 MiB pages; small ones are
/// ordinary heap memory. Checked against the kernel's own view of the process (/proc/self/smaps).
@Suite struct HugePageBufferTests {
    /// The `VmFlags:` line of the /proc/self/smaps entry whose range holds `address`.
    private func vmFlags(of address: UnsafeRawPointer) throws -> [Substring] {
        // procfs files report size 0: read to the end rather than by size.
        let smaps = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        let text = String(decoding: smaps.readDataToEndOfFile(), as: UTF8.self)
        let target = UInt(bitPattern: address)
        var inside = false
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= target && target < bounds[1]
            } else if inside, line.hasPrefix("VmFlags:") {
                return Array(fields.dropFirst())
            }
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    @Test func aLargeBufferIsAlignedAndAdvisedForHugePages() throws {
        let bytes = 5 * HugePageBuffer.hugePageBytes + 100
        let buffer = HugePageBuffer(byteCount: bytes)
        #expect(UInt(bitPattern: buffer.pointer) % UInt(HugePageBuffer.hugePageBytes) == 0)
        buffer.pointer.initializeMemory(as: UInt8.self, repeating: 7, count: bytes)
        #expect(buffer.pointer.load(fromByteOffset: bytes - 1, as: UInt8.self) == 7)
        #if os(Linux)
        #expect(try vmFlags(of: buffer.pointer).contains("hg"), "MADV_HUGEPAGE shows as `hg` in VmFlags")
        #expect(try vmFlags(of: buffer.pointer + bytes - 1).contains("hg"))
        #endif
    }

    @Test func aSmallBufferIsOrdinaryMemory() throws {
        let buffer = HugePageBuffer(byteCount: 1000)
        #expect(UInt(bitPattern: buffer.pointer) % 64 == 0)
        buffer.pointer.initializeMemory(as: UInt8.self, repeating: 1, count: 1000)
        #if os(Linux)
        #expect(try !vmFlags(of: buffer.pointer).contains("hg"))
        #endif
    }

    /// A repacked matrix's planes come from huge-page buffers: the tile plane of a 4 MiB Q8_0
    /// matrix starts on a 2 MiB boundary.
    @Test func repackedWeightsUseHugePages() throws {
        let n = 2048, k = 2048, format = WeightFormat.q8_0
        var blocks = [UInt8](repeating: 0, count: n * format.rowBytes(k: k))
        for i in stride(from: 0, to: blocks.count, by: format.blockBytes) { blocks[i + 1] = 0x3C }   // fp16 scale 1.0
        let matrix = try blocks.withUnsafeBytes { try WeightMatrix(blocks: $0, n: n, k: k, format: format) }
        let qs = try #require(matrix.weights.qs)
        #expect(UInt(bitPattern: qs) % UInt(HugePageBuffer.hugePageBytes) == 0)
        #if os(Linux)
        #expect(try vmFlags(of: qs).contains("hg"))
        #endif
    }
}
