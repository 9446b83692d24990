import Synchronization
// The tokenizer built from GGUF metadata: special-token partitioning, then SentencePiece or
// byte-level BPE on each raw fragment, with BOS/EOS as llama.cpp's `llama_vocab::impl::tokenize`.
import GGUF

/// A `Tokenizer` for `llama` (SentencePiece-style) and `gpt2` (byte-level BPE) GGUF vocabularies.
public final class GGUFTokenizer: Tokenizer {
    let vocabulary: Vocabulary
    /// `withPieceBytes`'s table, once built.
    private let decodedPieces = Mutex<DecodedPieces?>(nil)
    let special: SpecialTokenMatcher
    private let encoder: Encoder

    enum Encoder: Sendable {
        case sentencePiece(SentencePieceEncoder)
        case bytePair(BytePairEncoder)
    }

    /// Reads the vocabulary and builds the encoder; throws for unsupported models.
    public init(file: GGUFFile) throws(TokenizerError) {
        guard case let .string(model)? = file.metadata["tokenizer.ggml.model"] else {
            throw .missingMetadata("tokenizer.ggml.model")
        }
        var preName = ""
        if case let .string(p)? = file.metadata["tokenizer.ggml.pre"] { preName = p }
        switch model {
        case "llama":
            vocabulary = try Vocabulary(file: file, kind: .sentencePiece, preName: preName)
            encoder = .sentencePiece(SentencePieceEncoder(vocabulary: vocabulary))
        case "gpt2":
            // A missing pre-tokenizer means "default" in llama.cpp (with a loud warning).
            let name = preName.isEmpty ? "default" : preName
            guard let pre = PreTokenizer(name: name) else { throw .unsupportedPreTokenizer(name) }
            vocabulary = try Vocabulary(file: file, kind: .bytePairEncoding, preName: name)
            let ignoreMerges = ["llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0",
                                "lfm2", "jina-v5-nano", "glm4", "glm5"].contains(name)
            encoder = .bytePair(try BytePairEncoder(vocabulary: vocabulary, file: file, preTokenizer: pre,
                                                    ignoreMerges: ignoreMerges))
        default:
            throw .unsupportedModel(model)
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
        if addSpecial && vocabulary.addBOS && vocabulary.bos >= 0 { out.append(vocabulary.bos) }
        switch encoder {
        case let .sentencePiece(spm):
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
                    escaped.reserveCapacity(range.count + range.count / 4 + 3)
                    if vocabulary.addSpacePrefix && previousWasSpecial { escaped.append(contentsOf: [0xE2, 0x96, 0x81]) }
                    for b in text[range] {
                        if b == 0x20 && vocabulary.escapeWhitespace {
                            escaped.append(contentsOf: [0xE2, 0x96, 0x81])  // U+2581
                        } else {
                            escaped.append(b)
                        }
                    }
                    escaped.withUnsafeBufferPointer { spm.encode($0, into: &out) }
                    previousWasSpecial = false
                }
            }
        case let .bytePair(bpe):
            for fragment in fragments {
                switch fragment {
                case let .token(id): out.append(id)
                case let .text(range): bpe.encode(UnsafeBufferPointer(rebasing: text[range]), into: &out)
                }
            }
        }
        if addSpecial && vocabulary.addEOS && vocabulary.eos >= 0 { out.append(vocabulary.eos) }
        return out
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
