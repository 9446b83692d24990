// The public face of the module: the `Tokenizer` protocol, `loadTokenizer(from:)` and errors.
import GGUF

/// Text <-> token ids for one model, built from the model's GGUF metadata. Token for token it
/// matches llama.cpp (`llama_tokenize` / `llama_detokenize`) on the same file.
public protocol Tokenizer: Sendable {
    /// Token ids for `text`.
    /// - Parameters:
    ///   - addSpecial: add BOS/EOS as the model's metadata says (`add_bos_token`, `add_eos_token`).
    ///   - parseSpecial: turn control-token text such as `<|im_start|>` into its id; when false it
    ///     is tokenized as plain text (user-defined tokens are split out either way).
    func encode(_ text: String, addSpecial: Bool, parseSpecial: Bool) -> [Int32]
    /// As `encode(_:addSpecial:parseSpecial:)`, but control-token text that overlaps one of
    /// `literalRanges` (UTF-8 byte offsets into `text`) is tokenized as plain text: a chat
    /// template's own markers become control tokens, user content never does.
    func encode(_ text: String, addSpecial: Bool, parseSpecial: Bool, literalRanges: [Range<Int>]) -> [Int32]
    /// Text for `ids`; invalid UTF-8 is replaced with U+FFFD.
    /// - Parameter renderSpecial: include the text of control tokens such as `<bos>`.
    func decode(_ ids: [Int32], renderSpecial: Bool) -> String
    /// The raw bytes one token stands for (control tokens only when `renderSpecial`).
    func pieceBytes(_ id: Int32, renderSpecial: Bool) -> [UInt8]
    /// Calls `body` with the bytes `pieceBytes` would return, without building an array
    /// (streaming detokenization calls it for every generated token).
    func withPieceBytes<R>(_ id: Int32, renderSpecial: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R
    /// One token's text, special tokens rendered, invalid UTF-8 replaced (for display).
    func piece(_ id: Int32) -> String
    /// Number of ids in the vocabulary.
    var vocabularySize: Int { get }
    /// Beginning-of-sequence id, if the vocabulary has one.
    var bosID: Int32? { get }
    /// End-of-sequence id, if the vocabulary has one.
    var eosID: Int32? { get }
    /// Ids that end generation: EOS, EOT, `<|im_end|>`, `<end_of_turn>`, ... (llama.cpp's `is_eog`).
    var endOfGenerationIDs: Set<Int32> { get }
    /// Whether `encode(addSpecial: true)` starts with BOS.
    var addsBOS: Bool { get }
    /// Whether `encode(addSpecial: true)` ends with EOS.
    var addsEOS: Bool { get }
    /// Whether the decoder drops one leading space of the first token (SentencePiece
    /// `add_space_prefix` models).
    var stripsLeadingSpace: Bool { get }
    /// Whether the decoder removes spaces before `?!.,` and in contractions (gpt2-style models).
    var cleansSpaces: Bool { get }
    /// Whether `id` is a control token (rendered only with `renderSpecial`).
    func isControl(_ id: Int32) -> Bool
}

/// Why a tokenizer could not be built.
public enum TokenizerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `tokenizer.ggml.model` names an algorithm we do not implement.
    case unsupportedModel(String)
    /// `tokenizer.ggml.pre` names a pre-tokenizer we do not implement.
    case unsupportedPreTokenizer(String)
    case missingMetadata(String)
    case invalidMetadata(String)

    public var description: String {
        switch self {
        case let .unsupportedModel(m): return "unsupported tokenizer model '\(m)'"
        case let .unsupportedPreTokenizer(p): return "unsupported pre-tokenizer '\(p)'"
        case let .missingMetadata(k): return "missing tokenizer metadata \(k)"
        case let .invalidMetadata(k): return "invalid tokenizer metadata \(k)"
        }
    }
}

/// Builds the tokenizer described by a GGUF file's `tokenizer.ggml.*` metadata.
/// Supports `llama` (SentencePiece-style) and `gpt2` (byte-level BPE) vocabularies.
public func loadTokenizer(from file: GGUFFile) throws(TokenizerError) -> any Tokenizer {
    try GGUFTokenizer(file: file)
}

extension Tokenizer {
    /// Every token's decoded bytes (`pieceBytes(_:renderSpecial: false)`), nil for control tokens
    /// and tokens without bytes: what generated text can be made of, as constrained decoding's
    /// vocabulary needs it.
    public func textPieces() -> [[UInt8]?] {
        (0..<vocabularySize).map { id in
            let token = Int32(id)
            if isControl(token) { return nil }
            let piece = withPieceBytes(token, renderSpecial: false) { Array($0) }
            return piece.isEmpty ? nil : piece
        }
    }
}
