import Foundation
import Testing
import Architectures
import Engine
import GGUF
import TestSupport

/// Resident memory of a loaded model: the weights are repacked into memory of our own at load,
/// so the mapped GGUF file must not stay resident as well (that doubled the peak RSS against
/// llama.cpp's), and looking up embedding rows per token must not page the table back in.
@Suite struct ResidentMemoryTests {
    /// Resident KiB of the mappings of `path` in this process, from /proc/self/smaps.
    static func residentKiB(ofMappingsOf path: String) throws -> Int {
        let smaps = try String(contentsOfFile: "/proc/self/smaps", encoding: .utf8)
        var inFile = false, total = 0
        for line in smaps.split(separator: "\n") {
            if let first = line.first, first.isHexDigit, line.contains("-") {   // a mapping header
                inFile = line.hasSuffix(path)
            } else if inFile, line.hasPrefix("Rss:") {
                total += Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
            }
        }
        return total
    }

    @Test(arguments: ["smollm", "gemma"])
    func mappedFileIsNotResidentAfterLoadAndDecode(_ key: String) throws {
        let path = URL(fileURLWithPath: ReferenceData.modelPath(key)).resolvingSymlinksInPath().path
        let file = try GGUFFile(path: path)
        let fileKiB = file.bytes.count / 1024
        let model = try loadModel(file)
        let afterLoad = try Self.residentKiB(ofMappingsOf: path)
        let state = model.makeState(contextSize: 64, maxBatch: 16, kvFormat: .f16)
        // Tokens spread over the whole vocabulary: through the mapping, fault-around would map
        // tens of KiB around each row.
        let vocabulary = model.hyperparameters.vocabulary
        let tokens = (0..<16).map { Int32($0 * (vocabulary / 16) + 7) }
        _ = model.forward(tokens, state: state, logitRows: 15..<16)
        for t in tokens.prefix(8) { _ = model.forward([t], state: state, logitRows: 0..<1) }
        let afterDecode = try Self.residentKiB(ofMappingsOf: path)
        print("\(key): file \(fileKiB) KiB; resident mapping after load \(afterLoad) KiB, after 24 tokens \(afterDecode) KiB")
        // The header and metadata pages read after the release may come back; never the tensors.
        #expect(afterLoad < fileKiB / 50)
        #expect(afterDecode < fileKiB / 50)
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
        let resident = try Self.residentKiB(ofMappingsOf: path)
        #expect(resident == 0, "\(resident) KiB of the file still mapped after repacking \(order.count * 4352) KiB")
    }
}
