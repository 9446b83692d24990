import Testing
import Architectures
import Engine
import GGUF

/// The whole model gives the same bits whatever the thread count: for both real models and every
/// KV cache format, a prompt (one prefill batch) and `steps` greedy decode steps on 2 threads
/// produce exactly the logits (every vocabulary entry of every step, compared as bit patterns)
/// and tokens of the same run on 1 thread, on the active kernel path. The decode steps run at
/// positions 300-363, where every cache format decodes split-K, whose partials are merged over
/// ranges that must follow the positions and not the thread count.
/// Time cap: ~90 s on 2 vCPUs beside the other suites (12 runs of a 300-token prompt and 64 decode
/// steps of 135M / 270M models).
@Suite(.serialized) struct ThreadCountInvarianceTests {
    static let steps = 64

    /// The prompt tokens, then per step the logits and the token chosen greedily.
    static func run(_ model: any CausalLanguageModel, prompt: [Int32], kvFormat: KVCacheFormat, threads: Int) throws
        -> (logits: [[UInt32]], tokens: [Int32]) {
        let state = model.makeState(contextSize: prompt.count + steps, maxBatch: 512, kvFormat: kvFormat)
        state.context.threads = threads
        var logits: [[UInt32]] = [], tokens: [Int32] = []
        var row = try #require(model.forward(prompt, state: state, logitRows: prompt.count - 1..<prompt.count)).copyRow(0)
        for _ in 0..<steps {
            logits.append(row.map(\.bitPattern))
            let next = Int32(argmax(row))
            tokens.append(next)
            row = try #require(model.forward([next], state: state, logitRows: 0..<1)).copyRow(0)
        }
        return (logits, tokens)
    }

    @Test(arguments: ["smollm", "gemma"])
    func twoThreadsGiveOneThreadsBits(_ key: String) throws {
        let model = try loadModel(try GGUFFile(path: ReferenceData.modelPath(key)))
        // llama.cpp's prompts and continuations end to end, cut at 300 tokens.
        let prompt = Array(try ReferenceData.greedy(key).flatMap { $0.prompt_ids + $0.gen_ids }.prefix(300))
        #expect(prompt.count == 300)
        for format in KVCacheFormat.allCases {
            let one = try Self.run(model, prompt: prompt, kvFormat: format, threads: 1)
            let two = try Self.run(model, prompt: prompt, kvFormat: format, threads: 2)
            let firstStep = (0..<Self.steps).first { one.logits[$0] != two.logits[$0] }
            #expect(firstStep == nil, "\(key) \(format) on \(KernelPath.active): logits differ from step \(firstStep ?? -1)")
            let firstToken = (0..<Self.steps).first { one.tokens[$0] != two.tokens[$0] }
            #expect(firstToken == nil, "\(key) \(format): tokens differ from step \(firstToken ?? -1)")
        }
    }
}
