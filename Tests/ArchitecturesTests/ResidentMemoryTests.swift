import Foundation
import Testing
import Architectures
import Engine
import GGUF

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
}
