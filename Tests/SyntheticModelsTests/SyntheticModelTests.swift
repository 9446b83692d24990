import Foundation
import Testing
import Architectures
import Engine
import GGUF
@testable import SyntheticModels

// Time cap: 120 s on 2 cores (writes seven 100–270 MB files, runs a few tokens through each).

/// The real models in Models/, written by llama.cpp's converter and quantizer: the reference
/// for the synthetic presets of their shapes.
private let modelsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Models").path

private func realFile(_ name: String) throws -> GGUFFile { try GGUFFile(path: modelsDirectory + "/" + name) }

@Suite struct SyntheticPresetTests {
    /// The presets of the two real models plan exactly the tensors (names, shapes, types) and
    /// architecture keys of the published GGUF files, which llama.cpp's quantizer wrote: its type
    /// mix, fallbacks and tied output included.
    @Test(arguments: [("smollm2-135m:q4_1", "SmolLM2-135M-Instruct.Q4_1.gguf"), ("gemma3-270m:q4_k_m", "gemma-3-270m-q4_k_m.gguf")])
    func planEqualsThePublishedFile(_ spec: String, _ fileName: String) throws {
        let model = try #require(try SyntheticModel.parse(spec).first)
        let real = try realFile(fileName)
        let planned = Dictionary(uniqueKeysWithValues: model.tensors.map { ($0.name, $0) })
        #expect(Set(planned.keys) == Set(real.tensors.map(\.name)))
        for t in real.tensors {
            guard let p = planned[t.name] else { continue }
            #expect(p.shape == t.shape.map { Int($0) } && p.type == t.type, "\(t.name): planned \(p.shape) \(p.type), real \(t.shape) \(t.type)")
        }
        let arch = try #require(real.architecture)
        let keys = Dictionary(model.metadata, uniquingKeysWith: { a, _ in a })
        for key in real.metadataKeys where key.hasPrefix(arch + ".") {
            #expect(keys[key] == real.metadata[key], "\(key)")
        }
        #expect(Set(keys.keys.filter { $0.hasPrefix(arch + ".") }) == Set(real.metadataKeys.filter { $0.hasPrefix(arch + ".") }))
        #expect(try real.strings("tokenizer.ggml.tokens").count == model.shape.vocabulary)
    }

    @Test func badSpecsAreOneLineListingThePresets() throws {
        for spec in ["llama9-1t:q4_0", "llama3.2-1b:q3_k", "llama3.2-1b:", ""] {
            do {
                _ = try SyntheticModel.parse(spec)
                Issue.record("\(spec) parsed")
            } catch {
                let line = error.description
                #expect(!line.contains("\n") && line.contains("llama3.2-1b") && line.contains("q4_k_m"), "\(line)")
            }
        }
        #expect(try SyntheticModel.parse("qwen2.5-1.5b:q4_k_m,q8_0").map(\.mix) == [.q4_K_M, .q8_0])
        #expect(try SyntheticModel.parse("llama3.2-1b").map(\.mix) == [.q4_0])
    }

    /// Phi-4-mini's Q4_K_M writes its fused QKV in Q5_K; Q5_K_M on SmolLM2's 576-value rows
    /// falls back to Q5_1 (llama.cpp's fallback for Q5_K rows that are not a multiple of 256):
    /// written as llama.cpp writes them, since Quanta runs both.
    @Test func fallbackTypesAreWrittenAsLlamaCppWritesThem() throws {
        let phi = try #require(try SyntheticModel.parse("phi4-mini:q4_k_m").first)
        let qkv = phi.tensors.filter { $0.name.hasSuffix("attn_qkv.weight") }
        #expect(qkv.count == 32 && qkv.allSatisfy { $0.type == .q5_K })
        let smol = try #require(try SyntheticModel.parse("smollm2-135m:q5_k_m").first)
        let fallback = smol.tensors.filter { $0.type == .q5_1 }
        #expect(!fallback.isEmpty && fallback.allSatisfy { $0.shape[0] % 256 != 0 })
        #expect(smol.tensors.contains { $0.type == .q5_K })
    }
}

@Suite(.serialized) struct SyntheticFileTests {
    static let directory: String = {
        let d = NSTemporaryDirectory() + "quanta-synthetic-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()

    /// The written file read back by the `gguf` PyPI package (llama.cpp's gguf-py): the plan's
    /// tensor names, shapes and types, and the architecture keys; and by our reader.
    @Test func writtenFileReadsBackWithTheGGUFPackage() throws {
        let model = try #require(try SyntheticModel.parse("smollm2-135m:q4_k_m").first)
        let (path, _) = try SyntheticCache.materialize(model, in: Self.directory)
        defer { unlink(path) }
        let script = """
        import gguf, json, sys
        r = gguf.GGUFReader(sys.argv[1])
        tensors = [[t.name, [int(d) for d in t.shape], t.tensor_type.name] for t in r.tensors]
        keys = {k: f.contents() for k, f in r.fields.items() if k.startswith("llama.")}
        print(json.dumps({"tensors": tensors, "keys": keys, "tokens": len(r.fields["tokenizer.ggml.tokens"].data)}))
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 with the gguf package (make deps installs it): \(errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let tensors = try #require(json["tensors"] as? [[Any]])
        let theirs = tensors.map { "\($0[0]) \($0[1] as! [Int]) \($0[2])" }
        let ours = model.tensors.map { "\($0.name) \($0.shape) \($0.type)" }
        #expect(theirs == ours)
        #expect(Set(model.tensors.map(\.type)) == [.f32, .q4_K, .q5_0, .q6_K, .q8_0], "the mix exercised")
        let keys = try #require(json["keys"] as? [String: Any])
        #expect(keys["llama.block_count"] as? Int == 30 && keys["llama.attention.head_count_kv"] as? Int == 3)
        #expect(keys["llama.embedding_length"] as? Int == 576 && keys["llama.feed_forward_length"] as? Int == 1536)
        #expect(json["tokens"] as? Int == 49_152)
        let file = try GGUFFile(path: path)
        #expect(file.tensors.map { "\($0.name) \($0.shape.map { Int($0) }) \($0.type)" } == ours)
    }

    /// Every mix on the 135M shape (BF16 for the 16-bit ones; IQ4_XS's 576-value rows fall back
    /// to IQ4_NL, its 1536-value FFN-down rows stay IQ4_XS), and Gemma 3's: our loader takes the file and a prompt then a
    /// few decode steps give finite logits that differ between tokens (the scales neither
    /// overflow nor vanish).
    @Test(arguments: ["smollm2-135m:q4_0", "smollm2-135m:q4_1", "smollm2-135m:q5_0", "smollm2-135m:q8_0",
                      "smollm2-135m:q6_k", "smollm2-135m:q4_k_m", "smollm2-135m:q5_k_m", "gemma3-270m:q4_k_m",
                      "smollm2-135m:bf16", "smollm2-135m:iq4_xs"])
    func logitsAreFinite(_ spec: String) throws {
        try runsToFiniteLogits(try #require(try SyntheticModel.parse(spec).first), spec)
    }

    /// Q3_K_M (and the Q3_K_S / Q3_K_L plans) on a Llama shape whose rows are multiples of 256 (the presets small enough for the
    /// suite have 576- and 640-value rows, where Q3_K falls back to Q4_0): Q3_K for Q, K, gate and
    /// up, V and FFN-down in Q5_K / Q4_K as llama-quantize puts them, the head in Q6_K; it loads
    /// and runs to finite logits.
    @Test func q3KMixRuns() throws {
        let shape = SyntheticShape(
            name: "llama-tiny", architecture: "llama", vocabulary: 8192, embedding: 256, layers: 2, heads: 4, kvHeads: 2,
            headDim: 64, feedForward: 512, defaultMix: .q3_K_M, tiedOutput: false,
            extraKeys: [("vocab_size", .uint32(8192)), ("rope.dimension_count", .uint32(64))],
            context: 2048, ropeBase: 10_000, rmsEps: 1e-5, rotaryDims: 64)
        let model = SyntheticModel(shape: shape, mix: .q3_K_M)
        let type = Dictionary(uniqueKeysWithValues: model.tensors.map { ($0.name, $0.type) })
        #expect(type["blk.1.attn_q.weight"] == .q3_K && type["blk.1.ffn_up.weight"] == .q3_K)
        #expect(type["blk.0.attn_v.weight"] == .q5_K && type["blk.1.attn_output.weight"] == .q4_K)
        #expect(type["blk.1.ffn_down.weight"] == .q4_K && type["output.weight"] == .q6_K)
        try runsToFiniteLogits(model, "llama-tiny:q3_k_m")
        // Q3_K_S: Q3_K but the head; Q3_K_L: V, FFN-down and the attention output in Q5_K.
        let small = Dictionary(uniqueKeysWithValues: SyntheticModel(shape: shape, mix: .q3_K_S).tensors.map { ($0.name, $0.type) })
        #expect(small["blk.0.attn_v.weight"] == .q3_K && small["blk.1.ffn_down.weight"] == .q3_K && small["output.weight"] == .q6_K)
        let large = Dictionary(uniqueKeysWithValues: SyntheticModel(shape: shape, mix: .q3_K_L).tensors.map { ($0.name, $0.type) })
        #expect(large["blk.1.attn_v.weight"] == .q5_K && large["blk.1.ffn_down.weight"] == .q5_K && large["blk.1.attn_output.weight"] == .q5_K)
        #expect(large["blk.1.attn_q.weight"] == .q3_K && large["output.weight"] == .q6_K)
    }

    private func runsToFiniteLogits(_ model: SyntheticModel, _ spec: String) throws {
        let (path, _) = try SyntheticCache.materialize(model, in: Self.directory)
        defer { unlink(path) }
        let file = try GGUFFile(path: path)
        let lm = try loadModel(file)
        let state = lm.makeState(contextSize: 16, maxBatch: 8)
        var rows: [[Float]] = []
        let prompt = try #require(lm.forward([1, 300, 4000, 17, 9], state: state, logitRows: 0..<5))
        rows += (0..<5).map(prompt.copyRow)
        for t: Int32 in [42, 4242] { rows.append(try #require(lm.forward([t], state: state, logitRows: 0..<1)).copyRow(0)) }
        for (i, row) in rows.enumerated() {
            #expect(row.count == model.shape.vocabulary)
            #expect(row.allSatisfy { $0.isFinite }, "\(spec): row \(i) has NaN or inf")
            let mean = row.reduce(0, +) / Float(row.count)
            let spread = (row.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Float(row.count)).squareRoot()
            #expect(spread > 0.05 && spread < 1e3, "\(spec): row \(i) logit spread \(spread)")
        }
        #expect(rows[0] != rows[1])
    }
}
