// What one GGUF file gives every session that uses it: the network (its weights), the tokenizer,
// the chat template, the think markers, the tool-call format and the decode batchers. Immutable, so one instance serves the whole process.
import LanguageModelAPI
import Architectures
import GGUF
import Grammar
import Synchronization
import Templates
import Tokenizers

/// A loaded model file: the network with its tokenizer and chat format, shared process-wide
/// (see `LoadedModelStore`).
final package class LoadedModel: Sendable {
    let path: String
    let file: GGUFFile
    package let network: any CausalLanguageModel
    package let tokenizer: any Tokenizer
    /// The GGUF's `tokenizer.chat_template`, or `ChatTemplate.plain` for base models without one.
    let template: ChatTemplate
    /// Whether `template` came from the file.
    let hasOwnTemplate: Bool
    /// Text of the BOS / EOS tokens, as templates receive them in `bos_token` / `eos_token`.
    let bosText: String
    let eosText: String
    /// Ids of `<think>` and `</think>` when the vocabulary has both as single tokens.
    let thinkMarkers: (open: Int32, close: Int32)?
    /// `grammarVocabulary`, once built.
    let grammarVocabularyCache = Mutex<TokenVocabulary?>(nil)
    /// The decode batchers of this network, by thread count and context length (see `batcher`).
    private let batchers = Mutex<[BatcherKey: DecodeBatcher]>([:])
    private struct BatcherKey: Hashable { let threads: Int, contextSize: Int }
    /// How the template takes tools, tool calls and tool results.
    let toolSupport: ToolTemplateSupport
    /// The text format of the model's tool calls.
    let toolFormat: ToolCallFormat

    init(path: String, mode: WeightMode) throws {
        self.path = path
        file = try GGUFFile(path: path)
        let tokenizer = try loadTokenizer(from: file)
        self.tokenizer = tokenizer
        network = try loadModel(file, weights: mode)
        if case .string? = file.metadata["tokenizer.chat_template"] {
            template = try ChatTemplate(source: file.string("tokenizer.chat_template"))
            hasOwnTemplate = true
        } else {
            template = .plain
            hasOwnTemplate = false
        }
        bosText = tokenizer.bosID.map { tokenizer.piece($0) } ?? ""
        eosText = tokenizer.eosID.map { tokenizer.piece($0) } ?? ""
        if let open = Self.singleToken("<think>", tokenizer), let close = Self.singleToken("</think>", tokenizer) {
            thinkMarkers = (open, close)
        } else {
            thinkMarkers = nil
        }
        toolSupport = ToolTemplateSupport(template: template)
        toolFormat = ToolCallFormat.detect(template: toolSupport) { Self.singleToken($0, tokenizer) != nil }
    }

    /// The one batcher that runs every executor's sequences of this file with `threads` threads
    /// and a `contextSize` window, made on first use: sessions and server slots on one model
    /// share it, so their decode steps run as one batch.
    func batcher(threads: Int, contextSize: Int) -> DecodeBatcher {
        batchers.withLock { all in
            let key = BatcherKey(threads: threads, contextSize: contextSize)
            if let b = all[key] { return b }
            let b = DecodeBatcher(network: network, threads: threads)
            all[key] = b
            return b
        }
    }

    /// The id of `text` if the vocabulary holds it as one special (non-split) token.
    private static func singleToken(_ text: String, _ tokenizer: any Tokenizer) -> Int32? {
        let ids = tokenizer.encode(text, addSpecial: false, parseSpecial: true)
        guard ids.count == 1, tokenizer.piece(ids[0]) == text else { return nil }
        return ids[0]
    }

    /// Capabilities this file supports: guided generation and tool calling always (both are
    /// constrained decoding over the model's own vocabulary), `.reasoning` when it has think
    /// markers.
    var capabilities: LanguageModelCapabilities {
        Self.capabilities(hasThinkMarkers: thinkMarkers != nil)
    }

    /// The capabilities of a file with (or without) `<think>` and `</think>` tokens; also what
    /// `SystemLanguageModel` reports from the file's header before it loads the weights.
    static func capabilities(hasThinkMarkers: Bool) -> LanguageModelCapabilities {
        LanguageModelCapabilities([.guidedGeneration, .toolCalling] + (hasThinkMarkers ? [.reasoning] : []))
    }

    /// Text that ends an answer. A model without its own template is rendered with the plain
    /// `Role: content` format and, being a base model, goes on to write the next turn itself;
    /// its turn markers stop it. Templated models stop at their end-of-turn tokens instead.
    var stopSequences: [String] {
        hasOwnTemplate ? [] : ["\nUser:", "\nSystem:", "\nAssistant:"]
    }
}
