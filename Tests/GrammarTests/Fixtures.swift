// Grammars, vocabularies and a seeded generator shared by the tests.
import TestSupport
import Foundation
import GGUF
import Grammar
import Tokenizers

/// Reproducible randomness per seed: the shared SplitMix64, its seed spread first so that
/// neighbouring seeds start far apart.
func seededGenerator(seed: UInt64) -> SplitMix64 { SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 1) }

enum Grammars {
    /// An object with a free string, an enum, an integer range, an array of strings and optional extras.
    static let record = JSONGrammar(root: .object(properties: [
        JSONProperty(name: "name", shape: .string(.any)),
        JSONProperty(name: "kind", shape: .string(.choices(["alpha", "beta", "gamma \"delta\""]))),
        JSONProperty(name: "count", shape: .integer(minimum: 1, maximum: 12)),
        JSONProperty(name: "tags", shape: .array(items: .string(.any), minimumCount: 1, maximumCount: 3)),
        JSONProperty(name: "score", shape: .number(minimum: -5, maximum: 5), isOptional: true),
        JSONProperty(name: "code", shape: .string(.pattern(#"[A-Z]{3}\-\d+"#)), isOptional: true),
        JSONProperty(name: "done", shape: .boolean, isOptional: true),
    ]))

    /// Two tools whose calls share `{"name":"get_` and differ in the name's value.
    static let toolCall = JSONGrammar(
        prefix: "<tool_call>\n",
        root: .anyOf([
            .object(properties: [
                JSONProperty(name: "name", shape: .string(.choices(["get_weather"]))),
                JSONProperty(name: "arguments", shape: .object(properties: [
                    JSONProperty(name: "city", shape: .string(.any)),
                    JSONProperty(name: "days", shape: .integer(minimum: 1, maximum: 7), isOptional: true),
                ])),
            ]),
            .object(properties: [
                JSONProperty(name: "name", shape: .string(.choices(["get_time"]))),
                JSONProperty(name: "arguments", shape: .object(properties: [
                    JSONProperty(name: "zone", shape: .string(.pattern(#"[A-Z][a-z]+/[A-Z][a-z_]+"#))),
                ])),
            ]),
        ]),
        suffix: "\n</tool_call>")

    /// A recursive tree of nodes.
    static let tree = JSONGrammar(
        root: .reference("Node"),
        definitions: ["Node": .object(properties: [
            JSONProperty(name: "value", shape: .integer(minimum: -5, maximum: 5)),
            JSONProperty(name: "label", shape: .anyOf([.string(.any), .null]), isOptional: true),
            JSONProperty(name: "children", shape: .array(items: .reference("Node"), minimumCount: 0, maximumCount: 3), isOptional: true),
        ])])

    /// Scalars, nested arrays and all-optional objects.
    static let mixed = JSONGrammar(root: .array(items: .anyOf([
        .number(minimum: 0.5, maximum: 2.25),
        .integer(minimum: -40, maximum: -3),
        .null,
        .object(properties: [
            JSONProperty(name: "a", shape: .boolean, isOptional: true),
            JSONProperty(name: "b", shape: .string(.pattern("(ab|cd)*x?")), isOptional: true),
        ]),
        .array(items: .string(.choices(["é", "\u{1F600}", "x\ny"])), minimumCount: 0, maximumCount: 2),
    ]), minimumCount: 0, maximumCount: 4))

    /// Any JSON object nesting at most three deep (`response_format` `json_object`'s shape, smaller).
    static let freeObject = JSONGrammar(root: .anyObject(maximumDepth: 3))

    static let all: [(String, JSONGrammar)] = [("record", record), ("toolCall", toolCall), ("tree", tree), ("mixed", mixed),
                                               ("freeObject", freeObject)]
}

enum Vocabularies {
    /// Every single byte, plus JSON-ish multi-byte pieces, escapes and split UTF-8 characters.
    static let syntheticPieces: [[UInt8]?] = {
        var pieces: [[UInt8]?] = (0...255).map { [UInt8($0)] }
        let words = ["{\"", "\":", "\": ", "\", \"", "\",\"", "\"}", "\"]", "[\"", "true", "false", "null", "12", "0.", "-4",
                     "name", "kind", "count", "tags", "alpha", "beta", " gamma", "\\\"", "\\n", "\\u00e9", "\\u", "hello world",
                     "get_", "weather", "time", "<tool_call>", "\n</tool_call>", "Europe", "/Paris", "ABC", "-7", "é", "😀",
                     "}", "},", "],", "\"value\":", "children", " ", "  ", "x\\ny", "\u{7F}", "ab", "cd"]
        pieces += words.map { Array($0.utf8) }
        pieces.append(nil)  // a control token
        pieces.append([0xF0, 0x9F])  // half of an emoji
        pieces.append([])  // decodes to nothing
        pieces.append(Array("<eos>".utf8))  // end of generation, the last id
        return pieces
    }()

    static let synthetic = TokenVocabulary(tokenBytes: syntheticPieces, endOfGeneration: [Int32(syntheticPieces.count - 1)])

    static let modelsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Models")

    struct Loaded: Sendable {
        let vocabulary: TokenVocabulary
        let tokenBytes: [[UInt8]?]
    }

    /// A real model's vocabulary; throws (failing the test) when the file is missing.
    static func real(_ fileName: String) throws -> Loaded {
        let path = modelsDirectory.appendingPathComponent(fileName).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw MissingModel(description: "model file \(path) is missing: run Models/fetch (CI fetches it)")
        }
        let tokenizer: GGUFTokenizer
        do {
            tokenizer = try GGUFTokenizer(file: try GGUFFile(path: path))
        } catch {
            throw MissingModel(description: "model file \(path) is unreadable (\(error)): re-run Models/fetch")
        }
        let tokenBytes = tokenizer.textPieces()
        return Loaded(vocabulary: TokenVocabulary(tokenBytes: tokenBytes, endOfGeneration: tokenizer.endOfGenerationIDs), tokenBytes: tokenBytes)
    }

    static let smolLM2: Result<Loaded, any Error> = Result { try real("SmolLM2-135M-Instruct.Q4_1.gguf") }
    static let gemma3: Result<Loaded, any Error> = Result { try real("gemma-3-270m-q4_k_m.gguf") }
}

struct MissingModel: Error, CustomStringConvertible {
    let description: String
}

/// Samples allowed tokens at random until the document completes or `budget` runs out (then forces
/// the completion); returns the document bytes and the decoder.
func randomDocument(_ grammar: JSONGrammar, _ vocabulary: TokenVocabulary, seed: UInt64, budget: Int = 400,
                    forceMargin: Int = 4) throws -> (bytes: [UInt8], decoder: ConstrainedDecoder) {
    var decoder = try ConstrainedDecoder(grammar: grammar, vocabulary: vocabulary)
    var generator = seededGenerator(seed: seed)
    var used = 0
    while !decoder.isComplete {
        if decoder.mustFinish(remainingTokens: budget - used, margin: forceMargin) {
            for token in decoder.forcedCompletion() {
                guard decoder.accept(token) else { break }
                used += 1
            }
            break
        }
        let allowed = decoder.allowedTokens()
        guard let token = allowed.randomElement(using: &generator) else { break }
        guard decoder.accept(token) else { break }
        used += 1
    }
    return (decoder.bytes, decoder)
}
