// The vocabulary as llama.cpp's `llama_vocab::impl::load` sees it: token bytes, scores,
// attributes (with its text-based overrides), special ids, add-BOS/EOS flags and the
// end-of-generation set.
import GGUF

/// Per-token attributes, llama.cpp's `llama_token_attr` bits.
struct TokenAttributes: OptionSet, Sendable {
    let rawValue: UInt16
    static let unknown     = TokenAttributes(rawValue: 1 << 0)
    static let unused      = TokenAttributes(rawValue: 1 << 1)
    static let normal      = TokenAttributes(rawValue: 1 << 2)
    static let control     = TokenAttributes(rawValue: 1 << 3)
    static let userDefined = TokenAttributes(rawValue: 1 << 4)
    static let byte        = TokenAttributes(rawValue: 1 << 5)

    /// From `tokenizer.ggml.token_type` (1 normal, 2 unknown, 3 control, 4 user-defined,
    /// 5 unused, 6 byte; anything else is "undefined", no bits).
    init(tokenType: Int32) {
        switch tokenType {
        case 1: self = .normal
        case 2: self = .unknown
        case 3: self = .control
        case 4: self = .userDefined
        case 5: self = .unused
        case 6: self = .byte
        default: self = []
        }
    }

    init(rawValue: UInt16) { self.rawValue = rawValue }
}

/// Which tokenizer algorithm the vocabulary uses.
enum VocabularyKind: Sendable {
    /// `tokenizer.ggml.model = "llama"`: SentencePiece-style, score-driven merges, byte fallback.
    case sentencePiece
    /// `tokenizer.ggml.model = "gpt2"`: byte-level BPE with merge ranks and a pre-tokenizer;
    /// also `"gemma4"`, BPE over raw UTF-8 with spaces escaped as U+2581.
    case bytePairEncoding
    /// `tokenizer.ggml.model = "bert"`: WordPiece, greedy longest match per normalized word.
    case wordPiece

    /// The kind of a `tokenizer.ggml.model` value, nil when unsupported.
    init?(model: String) {
        switch model {
        case "llama": self = .sentencePiece
        case "gpt2", "gemma4": self = .bytePairEncoding
        case "bert": self = .wordPiece
        default: return nil
        }
    }
}

/// Immutable vocabulary data shared by the encoders and the decoder.
struct Vocabulary: Sendable {
    let kind: VocabularyKind
    /// Token text bytes, back to back; token i is `bytes[starts[i]..<starts[i+1]]`.
    let bytes: [UInt8]
    let starts: [Int32]
    let scores: [Float]
    var attributes: [TokenAttributes]
    /// Text -> id, byte-exact.
    let table: ByteTable

    var bos: Int32 = -1, eos: Int32 = -1, eot: Int32 = -1, eom: Int32 = -1, unk: Int32 = -1
    var sep: Int32 = -1, pad: Int32 = -1, mask: Int32 = -1
    var fimPre: Int32 = -1, fimSuf: Int32 = -1, fimMid: Int32 = -1
    var fimPad: Int32 = -1, fimRep: Int32 = -1, fimSep: Int32 = -1
    var addBOS = false, addEOS = false
    var addSpacePrefix = false
    /// Replace ' ' with U+2581 before encoding (SentencePiece, gemma4) and back when decoding
    /// (also WordPiece, whose word-initial tokens start with U+2581).
    var escapeWhitespace = false
    /// BERT's normalizer: lowercase, and strip accents (first codepoint of the NFD, marks dropped).
    var lowercase = true, stripAccents = true
    /// Longest token text in bytes (WordPiece bounds its longest-match search with it).
    let maxTokenLength: Int
    /// llama.cpp's detokenizer clean-up of " ," " 's" etc.
    var cleanSpaces = false
    var endOfGeneration: Set<Int32> = []
    /// Control, user-defined and unknown tokens, longest text first: the order in which
    /// llama.cpp carves them out of raw text.
    var specialTokens: [Int32] = []

    var count: Int { scores.count }

    @inline(__always)
    func withText<R>(_ id: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let a = Int(starts[Int(id)]), b = Int(starts[Int(id) + 1])
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[a..<b])) }
    }

    func text(_ id: Int32) -> [UInt8] { withText(id) { Array($0) } }

    func lookup(_ s: String) -> Int32 {
        var s = s
        return s.withUTF8 { table.lookup($0) }
    }

    /// Reads tokens, scores and types and applies llama.cpp's defaults and overrides.
    /// `model` is `tokenizer.ggml.model`; gemma4's defaults differ from gpt2's.
    init(file: GGUFFile, kind: VocabularyKind, model: String, preName: String) throws(TokenizerError) {
        self.kind = kind
        guard case let .array(.string(tokens))? = file.metadata["tokenizer.ggml.tokens"] else {
            throw .missingMetadata("tokenizer.ggml.tokens")
        }
        let n = tokens.count
        var scores = [Float](repeating: 0, count: n)
        switch file.metadata["tokenizer.ggml.scores"] {
        case let .array(.float32(a))? where a.count >= n: scores = Array(a[0..<n])
        case let .array(.int32(a))? where a.count >= n: scores = a[0..<n].map(Float.init)
        case nil: break
        default: throw .invalidMetadata("tokenizer.ggml.scores")
        }
        var attributes = [TokenAttributes](repeating: .normal, count: n)
        switch file.metadata["tokenizer.ggml.token_type"] {
        case let .array(.int32(a))? where a.count >= n:
            for i in 0..<n { attributes[i] = TokenAttributes(tokenType: a[i]) }
        case nil: break
        default: throw .invalidMetadata("tokenizer.ggml.token_type")
        }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(n * 8)
        var starts: [Int32] = [0]
        starts.reserveCapacity(n + 1)
        var longest = 0
        for i in 0..<n {
            var word = tokens[i]
            // llama.cpp renames empty tokens so that they stay distinct and printable.
            if word.isEmpty { word = "[EMPTY_\(i)]" }
            word.withUTF8 { bytes.append(contentsOf: $0) }
            longest = max(longest, Int(Int32(bytes.count) - starts[starts.count - 1]))
            starts.append(Int32(bytes.count))
        }
        maxTokenLength = longest
        self.bytes = bytes
        self.starts = starts
        self.table = ByteTable(storage: bytes, starts: starts, ids: (0..<Int32(n)).map { $0 })
        self.scores = scores
        self.attributes = attributes

        // Defaults per model type, then per pre-tokenizer, then explicit metadata.
        switch kind {
        case .sentencePiece:
            bos = 1; eos = 2; unk = 0
            addSpacePrefix = true; addBOS = true; escapeWhitespace = true
        case .wordPiece:
            bos = 101; unk = 100; sep = 102; pad = 0; mask = 103
            addBOS = true; cleanSpaces = true; escapeWhitespace = true
        case .bytePairEncoding where model == "gemma4":
            // No default ids; spaces become U+2581 as in SentencePiece, but merges are ranked.
            cleanSpaces = true; escapeWhitespace = true
        case .bytePairEncoding:
            bos = 11; eos = 11
            cleanSpaces = true
            if ["llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
                "jina-v5-nano", "tekken", "chameleon"].contains(preName) {
                addBOS = true
            }
            if ["deepseek-llm", "deepseek-coder", "deepseek-v3", "command-r", "qwen2", "deepseek-r1-qwen",
                "kormo", "f2llmv2", "qwen35", "poro-chat", "viking", "tekken", "smollm", "chameleon",
                "gpt-4o", "llama4", "kanana2", "talkie", "grok-2", "solar-open", "hunyuan", "seed-coder",
                "bailingmoe", "bailingmoe2", "llada-moe", "trillion", "granite-docling", "superbpe",
                "tiny_aya", "cohere2moe", "kimi-k2", "afmoe", "laguna", "minimax-m2", "exaone-moe",
                "joyai-llm", "hy_v4", "hunyuan-dense", "youtu", "spark2_5", "ufakzeka", "sarvam-moe",
                "granite-embed-multi-97m"].contains(preName) {
                cleanSpaces = false
            }
            if ["chatglm-bpe", "glm4", "glm5"].contains(preName) { bos = -1 }
            if ["gemma4", "granite-embed-multi-311m", "sarvam-moe"].contains(preName) { escapeWhitespace = true }
            if preName == "sarvam-moe" { cleanSpaces = false }
        }
        if let v = file.metadata["tokenizer.ggml.add_space_prefix"], case let .bool(b) = v { addSpacePrefix = b }

        func readID(_ key: String, _ id: inout Int32) {
            if id >= 0 && Int(id) >= n { id = -1 }
            guard let v = file.metadata["tokenizer.ggml." + key]?.intValue else { return }
            if v >= 0 && v < n { id = Int32(v) }
        }
        readID("bos_token_id", &bos)
        readID("eos_token_id", &eos)
        readID("eot_token_id", &eot)
        readID("eom_token_id", &eom)
        readID("unknown_token_id", &unk)
        readID("seperator_token_id", &sep)
        readID("padding_token_id", &pad)
        readID("mask_token_id", &mask)
        readID("fim_pre_token_id", &fimPre)
        readID("fim_suf_token_id", &fimSuf)
        readID("fim_mid_token_id", &fimMid)
        readID("fim_pad_token_id", &fimPad)
        readID("fim_rep_token_id", &fimRep)
        readID("fim_sep_token_id", &fimSep)
        readID("prefix_token_id", &fimPre)
        readID("suffix_token_id", &fimSuf)
        readID("middle_token_id", &fimMid)
        if case let .bool(b)? = file.metadata["tokenizer.ggml.add_bos_token"] { addBOS = b }
        if case let .bool(b)? = file.metadata["tokenizer.ggml.add_eos_token"] { addEOS = b }
        // Gemma 4 files say add_bos_token = false, yet the model needs BOS; llama.cpp overrides it.
        if kind == .bytePairEncoding && ["gemma4", "granite-embed-multi-311m"].contains(preName) { addBOS = true }
        if case let .bool(b)? = file.metadata["tokenizer.ggml.normalizer.lowercase"] { lowercase = b }
        stripAccents = lowercase
        if case let .bool(b)? = file.metadata["tokenizer.ggml.normalizer.strip_accents"] { stripAccents = b }

        applyTextOverrides()
        buildSpecialTokens()
    }

    /// llama.cpp finds EOT/EOM/FIM and end-of-generation tokens by their text and forces them to
    /// be control tokens ("control-looking token ... its type will be overridden"), marks control
    /// tokens whose text contains "unused" as unused, and builds the EOG set.
    private mutating func applyTextOverrides() {
        func force(_ i: Int) { attributes[i].insert(.control) }
        let eotTexts: Set<String> = ["<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
                                     "<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>",
                                     "<end_of_utterance>"]
        let fimPreTexts: Set<String> = ["<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>",
                                        "<PRE>", "▁<PRE>", "<|code_prefix|>", "<|prefix|>"]
        let fimSufTexts: Set<String> = ["<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>",
                                        "<SUF>", "▁<SUF>", "<|code_suffix|>", "<|suffix|>"]
        let fimMidTexts: Set<String> = ["<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>",
                                        "<MID>", "▁<MID>", "<|code_middle|>", "<|middle|>"]
        let fimPadTexts: Set<String> = ["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"]
        let fimRepTexts: Set<String> = ["<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"]
        let fimSepTexts: Set<String> = ["<|file_sep|>"]
        let eogTexts: Set<String> = ["<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>",
                                     "<|calls|>", "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>",
                                     "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>", "<end_of_utterance>", "<eos>",
                                     "<turn|>", "<|tool_response>", "<｜end▁of▁sentence｜>", "[e~["]
        let interesting = eotTexts.union(fimPreTexts).union(fimSufTexts).union(fimMidTexts).union(fimPadTexts)
            .union(fimRepTexts).union(fimSepTexts).union(eogTexts).union(["<|eom_id|>"])
        // Look each text up (byte-exact) instead of scanning 262k tokens. llama.cpp walks an
        // unordered_map; we take candidates in id order, which only matters for vocabularies with
        // two candidate texts for the same role.
        var candidates: [(Int, String)] = interesting.compactMap { t in
            let id = lookup(t)
            return id >= 0 ? (Int(id), t) : nil
        }
        candidates.sort { $0.0 < $1.0 }
        for (i, t) in candidates {
            if eot < 0 && eotTexts.contains(t) { eot = Int32(i); force(i) }
            if eom < 0 && t == "<|eom_id|>" { eom = Int32(i); force(i) }
            if fimPre < 0 && fimPreTexts.contains(t) { fimPre = Int32(i); force(i) }
            if fimSuf < 0 && fimSufTexts.contains(t) { fimSuf = Int32(i); force(i) }
            if fimMid < 0 && fimMidTexts.contains(t) { fimMid = Int32(i); force(i) }
            if fimPad < 0 && fimPadTexts.contains(t) { fimPad = Int32(i); force(i) }
            if fimRep < 0 && fimRepTexts.contains(t) { fimRep = Int32(i); force(i) }
            if fimSep < 0 && fimSepTexts.contains(t) { fimSep = Int32(i); force(i) }
        }
        // Control tokens named "...unused..." are unused.
        for i in 0..<attributes.count where attributes[i].contains(.control) && !attributes[i].contains(.unused) {
            let hasUnused = withText(Int32(i)) { t -> Bool in
                let pattern: [UInt8] = Array("unused".utf8)
                guard t.count >= pattern.count else { return false }
                for s in 0...(t.count - pattern.count) where t[s] == 0x75 {
                    var ok = true
                    for k in 1..<pattern.count where t[s + k] != pattern[k] { ok = false; break }
                    if ok { return true }
                }
                return false
            }
            if hasUnused { attributes[i].insert(.unused) }
        }
        var eog = Set<Int32>()
        for id in [fimPad, fimRep, fimSep] where id >= 0 { eog.insert(id) }
        for (i, t) in candidates where eogTexts.contains(t) {
            eog.insert(Int32(i))
            force(i)
        }
        // gpt-oss: these are always rendered.
        for t in ["<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"] {
            let id = lookup(t)
            if id >= 0 { attributes[Int(id)] = .userDefined }
        }
        for id in [eos, eot, eom] where id >= 0 { eog.insert(id) }
        // o200k_harmony / solar-open: "<|end|>" is not end-of-generation when "<|return|>" and
        // "<|call|>" (or "<|calls|>" and "<|flush|>") exist.
        let eogText = Dictionary(eog.map { (String(decoding: text($0), as: UTF8.self), $0) },
                                 uniquingKeysWith: { a, _ in a })
        if let end = eogText["<|end|>"],
           (eogText["<|return|>"] != nil && (eogText["<|call|>"] != nil || eogText["<|calls|>"] != nil))
            || ((eogText["<|call|>"] != nil || eogText["<|calls|>"] != nil) && eogText["<|flush|>"] != nil) {
            eog.remove(end)
            attributes[Int(end)] = .userDefined
        }
        // gemma4 / plamo: a normal "</s>".
        if let s = eogText["</s>"], eogText["<|tool_response>"] != nil || eogText["<|plamo:eos|>"] != nil {
            eog.remove(s)
            attributes[Int(s)] = .normal
        }
        endOfGeneration = eog
    }

    private mutating func buildSpecialTokens() {
        var ids: [Int32] = []
        for i in 0..<attributes.count
        where !attributes[i].intersection([.control, .userDefined, .unknown]).isEmpty {
            ids.append(Int32(i))
        }
        // Longest first, as llama.cpp sorts them; ties by id (std::sort leaves them unspecified).
        let lengths = ids.map { starts[Int($0) + 1] - starts[Int($0)] }
        let order = ids.indices.sorted { a, b in
            lengths[a] != lengths[b] ? lengths[a] > lengths[b] : ids[a] < ids[b]
        }
        specialTokens = order.map { ids[$0] }
    }
}
