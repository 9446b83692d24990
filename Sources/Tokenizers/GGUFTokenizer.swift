import Synchronization
// The tokenizer built from GGUF metadata: special-token partitioning, then SentencePiece, BPE or
// WordPiece on each raw fragment, with BOS/EOS as llama.cpp's `llama_vocab::impl::tokenize`.
import GGUF

/// A `Tokenizer` for `llama` (SentencePiece-style), `gpt2` (byte-level BPE), `gemma4` (BPE over
/// U+2581-escaped UTF-8) and `bert` (WordPiece) GGUF vocabularies.
public final class GGUFTokenizer: Tokenizer {
    let vocabulary: Vocabulary
    /// `withPieceBytes`'s table, once built.
    private let decodedPieces = Mutex<DecodedPieces?>(nil)
    let special: SpecialTokenMatcher
    /// The encoder for the vocabulary's kind; exactly one is set. (Optionals rather than a
    /// three-case enum: a multi-payload enum may keep its case in the spare bits of a payload
    /// pointer, which LeakSanitizer in the fuzz build cannot follow and reports as a leak.)
    private let sentencePiece: SentencePieceEncoder?
    private let bytePair: BytePairEncoder?
    private let wordPiece: WordPieceEncoder?

    /// Reads the vocabulary and builds the encoder; throws for unsupported models.
    public init(file: GGUFFile) throws(TokenizerError) {
        guard case let .string(model)? = file.metadata["tokenizer.ggml.model"] else {
            throw .missingMetadata("tokenizer.ggml.model")
        }
        guard let kind = VocabularyKind(model: model) else { throw .unsupportedModel(model) }
        var preName = ""
        if case let .string(p)? = file.metadata["tokenizer.ggml.pre"] { preName = p }
        switch kind {
        case .sentencePiece:
            vocabulary = try Vocabulary(file: file, kind: kind, model: model, preName: preName)
            sentencePiece = SentencePieceEncoder(vocabulary: vocabulary)
            bytePair = nil
            wordPiece = nil
        case .wordPiece:
            vocabulary = try Vocabulary(file: file, kind: kind, model: model, preName: preName)
            wordPiece = WordPieceEncoder(vocabulary: vocabulary)
            sentencePiece = nil
            bytePair = nil
        case .bytePairEncoding:
            // A missing pre-tokenizer means "default" in llama.cpp (with a loud warning); gemma4
            // models always use the gemma4 one.
            let name = model == "gemma4" ? "gemma4" : preName.isEmpty ? "default" : preName
            guard let pre = PreTokenizer(name: name) else { throw .unsupportedPreTokenizer(name) }
            vocabulary = try Vocabulary(file: file, kind: kind, model: model, preName: name)
            let ignoreMerges = ["llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0",
                                "lfm2", "jina-v5-nano", "glm4", "glm5", "tekken"].contains(name)
            bytePair = try BytePairEncoder(
                vocabulary: vocabulary, file: file, preTokenizer: pre, ignoreMerges: ignoreMerges,
                wholeLineFeedRuns: ["gemma4", "granite-embed-multi-311m"].contains(name))
            sentencePiece = nil
            wordPiece = nil
        }
        special = SpecialTokenMatcher(vocabulary: vocabulary)
    }

    public var vocabularySize: Int { vocabulary.count }
    public var bosID: Int32? { vocabulary.bos >= 0 ? vocabulary.bos : nil }
    public var eosID: Int32? { vocabulary.eos >= 0 ? vocabulary.eos : nil }
    public var endOfGenerationIDs: Set<Int32> { vocabulary.endOfGeneration }
    public var addsBOS: Bool { vocabulary.addBOS }
    public var addsEOS: Bool { vocabulary.addEOS }
    public var stripsLeadingSpace: Bool { vocabulary.addSpacePrefix }
    public var cleansSpaces: Bool { vocabulary.cleanSpaces }

    public func isControl(_ id: Int32) -> Bool {
        id >= 0 && Int(id) < vocabulary.count && vocabulary.attributes[Int(id)].contains(.control)
    }

    public func encode(_ text: String, addSpecial: Bool, parseSpecial: Bool) -> [Int32] {
        var text = text
        return text.withUTF8 { encode(utf8: $0, addSpecial: addSpecial, parseSpecial: parseSpecial) }
    }

    public func encode(_ text: String, addSpecial: Bool, parseSpecial: Bool, literalRanges: [Range<Int>]) -> [Int32] {
        var text = text
        return text.withUTF8 { encode(utf8: $0, addSpecial: addSpecial, parseSpecial: parseSpecial, literalRanges: literalRanges) }
    }

    /// Encodes UTF-8 bytes (assumed valid); control-token text inside `literalRanges` (byte
    /// offsets) stays text.
    public func encode(utf8 text: UnsafeBufferPointer<UInt8>, addSpecial: Bool, parseSpecial: Bool,
                       literalRanges: [Range<Int>] = []) -> [Int32] {
        var out: [Int32] = []
        out.reserveCapacity(text.count / 3 + 2)
        let fragments = special.partition(text, parseSpecial: parseSpecial, literalRanges: literalRanges)
        // (WordPiece adds its own [CLS] below.)
        if addSpecial && vocabulary.addBOS && vocabulary.bos >= 0 && vocabulary.kind != .wordPiece {
            out.append(vocabulary.bos)
        }
        if let spm = sentencePiece {
            // A space is prefixed to text that starts the input or follows a special token.
            var previousWasSpecial = true
            var escaped: [UInt8] = []
            for fragment in fragments {
                switch fragment {
                case let .token(id):
                    out.append(id)
                    previousWasSpecial = true
                case let .text(range):
                    escaped.removeAll(keepingCapacity: true)
                    if vocabulary.addSpacePrefix && previousWasSpecial { escaped.append(contentsOf: [0xE2, 0x96, 0x81]) }
                    if vocabulary.escapeWhitespace {
                        Self.escapeSpaces(text[range], into: &escaped)
                    } else {
                        escaped.append(contentsOf: text[range])
                    }
                    escaped.withUnsafeBufferPointer { spm.encode($0, into: &out) }
                    previousWasSpecial = false
                }
            }
        } else if let bpe = bytePair {
            var escaped: [UInt8] = []
            for fragment in fragments {
                switch fragment {
                case let .token(id): out.append(id)
                case let .text(range) where vocabulary.escapeWhitespace:
                    escaped.removeAll(keepingCapacity: true)
                    Self.escapeSpaces(text[range], into: &escaped)
                    escaped.withUnsafeBufferPointer { bpe.encode($0, into: &out) }
                case let .text(range): bpe.encode(UnsafeBufferPointer(rebasing: text[range]), into: &out)
                }
            }
        } else if let wpm = wordPiece {
            // llama.cpp's WordPiece brackets the text with [CLS] ... [SEP] whenever add_special is
            // set, whatever add_bos_token says.
            if addSpecial && vocabulary.bos >= 0 { out.append(vocabulary.bos) }
            for fragment in fragments {
                switch fragment {
                case let .token(id): out.append(id)
                case let .text(range): wpm.encode(UnsafeBufferPointer(rebasing: text[range]), into: &out)
                }
            }
            if addSpecial && vocabulary.sep >= 0 { out.append(vocabulary.sep) }
            return out
        }
        if addSpecial && vocabulary.addEOS && vocabulary.eos >= 0 { out.append(vocabulary.eos) }
        return out
    }

    /// Appends `text` with every ' ' replaced by U+2581 (llama.cpp's `llama_escape_whitespace`).
    private static func escapeSpaces(_ text: Slice<UnsafeBufferPointer<UInt8>>, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + text.count + text.count / 4 + 3)
        for b in text {
            if b == 0x20 { out.append(contentsOf: [0xE2, 0x96, 0x81]) } else { out.append(b) }
        }
    }

    public func pieceBytes(_ id: Int32, renderSpecial: Bool) -> [UInt8] {
        Detokenizer.pieceBytes(vocabulary, id, renderSpecial: renderSpecial)
    }

    public func withPieceBytes<R>(_ id: Int32, renderSpecial: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if renderSpecial { return pieceBytes(id, renderSpecial: true).withUnsafeBufferPointer(body) }
        // Built on the first call (generation), not at load: tokenizing alone never needs it.
        let table = decodedPieces.withLock { table in
            if table == nil { table = DecodedPieces(vocabulary) }
            return table!
        }
        return table.withPiece(id, body)
    }

    public func piece(_ id: Int32) -> String {
        String(decoding: pieceBytes(id, renderSpecial: true), as: UTF8.self)
    }

    public func decode(_ ids: [Int32], renderSpecial: Bool) -> String {
        String(decoding: Detokenizer.decode(vocabulary, ids, renderSpecial: renderSpecial), as: UTF8.self)
    }
}
