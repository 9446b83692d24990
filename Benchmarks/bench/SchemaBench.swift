// `bench --schema`: the cost of guided generation. tgN+schema decodes N tokens as tgN does, but
// every step masks the logits with a JSON grammar's token mask (the model's own vocabulary),
// picks the best allowed token, feeds it back and advances the grammar — the work
// `respond(to:generating:)` adds per token. A finished document starts the next one.
import Architectures
import Engine
import GGUF
import Grammar
import Tokenizers

/// A schema like the guided-generation tests' (enum, integer and number ranges, string array).
let benchSchema = JSONGrammar(root: .object(properties: [
    JSONProperty(name: "name", shape: .string(.any)),
    JSONProperty(name: "species", shape: .string(.choices(["cat", "dog", "parrot", "rabbit"]))),
    JSONProperty(name: "age", shape: .integer(minimum: 0, maximum: 30)),
    JSONProperty(name: "weightKilograms", shape: .number(minimum: 0.1, maximum: 80)),
    JSONProperty(name: "toys", shape: .array(items: .string(.any), minimumCount: 1, maximumCount: 3)),
]))

/// Mask timings of every `tgN+schema` step of the run, microseconds.
nonisolated(unsafe) var schemaMaskMicroseconds: [Double] = []
/// Whole-step timings (forward + mask + accept) of the same steps, microseconds.
nonisolated(unsafe) var schemaStepMicroseconds: [Double] = []

/// The vocabulary as constrained decoding sees it (control tokens excluded).
func grammarVocabulary(_ file: GGUFFile) throws -> TokenVocabulary {
    let tokenizer = try loadTokenizer(from: file)
    return TokenVocabulary(tokenBytes: tokenizer.textPieces(), endOfGeneration: tokenizer.endOfGenerationIDs)
}

/// Times `tokens` guided steps; returns tok/s and records per-step mask and step times.
func generateGuided(_ model: any CausalLanguageModel, tokens: Int, depth: Int, threads: Int, kv: KVCacheFormat,
                    vocabulary: TokenVocabulary) -> Double {
    let state = stateAtDepth(model, depth: depth, tokens: tokens + 1, threads: threads, kv: kv)
    var decoder = try! ConstrainedDecoder(grammar: benchSchema, vocabulary: vocabulary)
    var token: Int32 = benchTokens(1, vocabulary: model.hyperparameters.vocabulary)[0]
    var logits = [Float]()
    let t0 = now()
    for _ in 0..<tokens {
        let stepStart = now()
        let out = model.forward([token], state: state, logitRows: 0..<1)
        logits = out?.copyRow(0) ?? logits
        if decoder.isComplete { decoder = try! ConstrainedDecoder(grammar: benchSchema, vocabulary: vocabulary) }
        let maskStart = now()
        decoder.mask(&logits)
        var best = 0
        for i in logits.indices where logits[i] > logits[best] { best = i }
        token = Int32(best)
        decoder.accept(token)
        let end = now()
        schemaMaskMicroseconds.append((end - maskStart) * 1e6)
        schemaStepMicroseconds.append((end - stepStart) * 1e6)
    }
    return Double(tokens) / (now() - t0)
}
