import Foundation
import GGUF
import TestSupport
import Testing
@testable import Engine

/// Weights loaded from a mapped GGUF leave none of the file mapped into the process: the repacked
/// copies are what decode reads, and the file's pages would count a model twice towards the
/// resident set (and the peak a user sees). Checked against the kernel's own view of the process
/// (/proc/self/smaps), with the file read from disk as a model is (not from the pages its writing
/// left in the page cache).
@Suite struct LoadResidencyTests {
    /// KiB of this process's mappings of `path` that are resident (the `Rss:` lines of its
    /// /proc/self/smaps entries).
    private func residentKiB(of path: String) throws -> Int {
        let smaps = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        let text = String(decoding: smaps.readDataToEndOfFile(), as: UTF8.self)
        var inside = false, kib = 0
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                inside = fields.last.map { String($0) == path } ?? false
            } else if inside, line.hasPrefix("Rss:"), fields.count >= 2, let value = Int(fields[1]) {
                kib += value
            }
        }
        return kib
    }

    /// A model's load in small: 4.25 MiB Q8_0 matrices, each beside a 1-D f32 tensor read through
    /// the mapping (as norms are), repacked out of file order. After the last matrix none of the
    /// file is mapped. Dropping only each repacked slice's own range left what other reads' faults
    /// had mapped around them (here 76 KiB; in a 4 GB model's load, page-cache folios of up to
    /// 2 MiB, 170 MiB by its end).
    @Test func repackedTensorsLeaveTheFileUnmapped() throws {
        let (n, k) = (2048, 2048)   // Q8_0: 2176 bytes a row, 4.25 MiB a matrix
        let order = [4, 1, 5, 0, 3, 2]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("residency-\(getpid()).gguf").path
        defer { unlink(path) }
        var writer = GGUFWriter()
        writer.set("general.architecture", .string("llama"))
        for t in 0..<order.count {
            writer.declareTensor("w\(t)", shape: [k, n], type: .q8_0)
            writer.declareTensor("norm\(t)", shape: [k], type: .f32)
        }
        var rng = SplitMix64(seed: 5)
        try writer.write(to: path) { name, bytes in
            if name.hasPrefix("norm") {
                for i in 0..<(bytes.count / 4) { bytes.storeBytes(of: Float(1).bitPattern, toByteOffset: 4 * i, as: UInt32.self) }
                return
            }
            for i in 0..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
            for block in 0..<(bytes.count / 34) { bytes.storeBytes(of: UInt16(0x2000), toByteOffset: block * 34, as: UInt16.self) }
        }
        // Out of the page cache, so the load reads the file as a model's first load does.
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        close(fd)

        let file = try GGUFFile(path: path)
        var loaded: [WeightMatrix] = []
        for t in order {
            let norm = try dequantizeRows(try #require(file.tensor(named: "norm\(t)")), in: file)
            #expect(norm.allSatisfy { $0 == 1 })
            loaded.append(try WeightMatrix(tensor: try #require(file.tensor(named: "w\(t)")), in: file))
        }
        let resident = try residentKiB(of: path)
        #expect(resident == 0, "\(resident) KiB of the file still mapped after repacking \(order.count * 4352) KiB")
    }
}
