// A Transcript through the package's JSON coder (what `quanta chat`'s /save writes and /load
// reads) against Foundation's JSONEncoder and JSONDecoder as the reference for FM27's shape:
// every entry kind, every segment kind, options with a 64-bit seed, a response format, tool
// definitions, metadata, nested generated content with non-ASCII and astral text, Data and URL.
// Time cap: 2 s.
import Foundation
import JSON
import LanguageModelAPI
import Testing

/// An application's own segment kind; it reads back as `DecodedCustomSegment`.
struct StickerSegment: Transcript.CustomSegment {
    var id = "sticker-1"
    var content = ["stars": 5, "size": -2]
    var description: String { "★★★★★" }
}

@Suite struct TranscriptJSONTests {
    static func transcript(custom: Bool) throws -> Transcript {
        let pet = try GeneratedContent(json: #"""
            {"name": "Zoë \"Zo\" 😀\n𝄞", "age": 3, "weightKilograms": 4.25,
             "toys": ["ball", {"deep": [null, true, -0.5, 1e21, 12345678901234567890, "\u0001\u2028"]}]}
            """#)
        let system: [Transcript.Segment] = [.text(.init(id: "s1", content: "Be brief. Ünïcödé 中文 🙂"))]
            + (custom ? [.custom(StickerSegment())] : [])
        var options = GenerationOptions(sampling: .random(top: 40, seed: .max), temperature: 0.7, maximumResponseTokens: 128)
        options.toolCallingMode = .required
        var response = Transcript.Response(id: "r1", metadata: ["done": true, "score": 0.25], segments: [
            .text(.init(id: "t3", content: "Here: \t\"tab\"")), .structure(.init(id: "st2", source: "Pet", content: pet)),
        ])
        response.assetIDs = ["asset-1", "asset-2"]
        return Transcript(entries: [
            .instructions(.init(id: "i1", segments: system, toolDefinitions: [
                .init(name: "find_pet", description: "Finds a pet by name", parameters: Pet.generationSchema),
            ])),
            .prompt(.init(id: "p1", metadata: ["user": "ana", "turn": 1, "ratio": 0.5, "flag": false], segments: [
                .text(.init(id: "t1", content: "Find Zoë")),
                .attachment(.init(id: "a1", content: .image(.init(imageURL: URL(string: "file:///tmp/zo%C3%AB.png")!)), label: "photo")),
                .attachment(.init(id: "a2", content: .image(.init(data: Data([0, 1, 2, 0xFE, 0xFF]))))),
            ], options: options, responseFormat: .init(schema: Pet.generationSchema),
            contextOptions: ContextOptions(includeSchemaInPrompt: false, reasoningLevel: .custom("thorough")))),
            .reasoning(.init(id: "re1", metadata: ["model": "x"], segments: [.text(.init(id: "t2", content: "thinking…"))],
                             signature: Data([9, 8, 7]))),
            .toolCalls(.init(id: "tc1", [.init(id: "call_1", metadata: ["n": 2], toolName: "find_pet", arguments: pet)])),
            .toolOutput(.init(id: "to1", toolName: "find_pet", segments: [.structure(.init(id: "st1", source: "Pet", content: pet))])),
            .response(response),
            .prompt(.init(id: "p2", metadata: [:], segments: [.text(.init(id: "t4", content: "again"))],
                          options: GenerationOptions(sampling: .random(probabilityThreshold: 0.9), temperature: nil))),
            .prompt(.init(id: "p3", metadata: [:], segments: [], options: GenerationOptions(sampling: .greedy))),
        ])
    }

    /// `value` with every object's members sorted by key.
    func sortedMembers(_ value: JSONValue) -> JSONValue {
        switch value {
        case let .array(elements): return .array(elements.map(sortedMembers))
        case let .object(members): return .object(members.map { ($0.key, sortedMembers($0.value)) }.sorted { $0.0 < $1.0 })
        default: return value
        }
    }

    @Test func foundationReadsWhatWeWriteAndWeReadWhatFoundationWrites() throws {
        let transcript = try Self.transcript(custom: false)
        let ours = try JSONValueEncoder(sortedKeys: true).encode(transcript)
        let theirs = String(decoding: try JSONEncoder().encode(transcript), as: UTF8.self)
        #expect(try JSONDecoder().decode(Transcript.self, from: Data(ours.indentedText.utf8)) == transcript)
        #expect(try JSONValueDecoder().decode(Transcript.self, from: theirs) == transcript)
        #expect(try JSONValueDecoder().decode(Transcript.self, from: ours) == transcript)
        #expect(sortedMembers(ours) == sortedMembers(try JSONValue(parsing: theirs)))
    }

    /// A custom segment comes back as `DecodedCustomSegment` on both sides, equal.
    @Test func customSegmentsReadBackAlike() throws {
        let transcript = try Self.transcript(custom: true)
        let ours = try JSONValueEncoder().encode(transcript)
        let theirs = try JSONEncoder().encode(transcript)
        let reference = try JSONDecoder().decode(Transcript.self, from: theirs)
        #expect(try JSONValueDecoder().decode(Transcript.self, from: ours) == reference)
        #expect(try JSONValueDecoder().decode(Transcript.self, from: String(decoding: theirs, as: UTF8.self)) == reference)
        #expect(try JSONDecoder().decode(Transcript.self, from: Data(ours.jsonText.utf8)) == reference)
        guard case let .instructions(instructions)? = reference.first, case let .custom(custom) = instructions.segments[1] else {
            Issue.record("no custom segment")
            return
        }
        #expect((custom as? DecodedCustomSegment)?.description == "★★★★★")
    }

    /// A damaged transcript fails as Foundation fails it (the same error, the same coding path)
    /// and reads as one line naming the place.
    @Test func errorsNameTheirPlaceInOneLine() throws {
        let tree = try JSONValueEncoder().encode(try Self.transcript(custom: false))
        guard case var .array(entries) = tree, case var .object(prompt) = entries[1] else { Issue.record("not entries"); return }
        let cases: [(String, JSONValue, String)] = [
            ("segments", .array([.object([("type", .string("text")), ("id", .string("x")), ("content", .integer(7))])]),
             "[1].segments[0].content: expected String, found a number"),
            ("options", .null, "[1].options: expected Dictionary<String, Any>, found null"),
            ("type", .string("poem"), "[1].type: "),
            ("id", .array([]), "[1].id: expected String, found an array"),
        ]
        for (key, value, summary) in cases {
            let index = try #require(prompt.firstIndex { $0.key == key })
            var damaged = prompt
            damaged[index].value = value
            entries[1] = .object(damaged)
            let text = JSONValue.array(entries).jsonText
            let ours = try #require(Self.decodingError { try JSONValueDecoder().decode(Transcript.self, from: text) })
            let theirs = try #require(Self.decodingError { try JSONDecoder().decode(Transcript.self, from: Data(text.utf8)) })
            #expect(codingErrorSummary(ours).hasPrefix(summary), "\(codingErrorSummary(ours))")
            #expect(!codingErrorSummary(ours).contains("\n"))
            #expect(codingErrorSummary(ours).split(separator: ":").first == codingErrorSummary(theirs).split(separator: ":").first)
            #expect(Self.kind(ours) == Self.kind(theirs))
        }
        prompt.removeAll { $0.key == "contextOptions" }
        entries[1] = .object(prompt)
        let missing = try #require(Self.decodingError { try JSONValueDecoder().decode(Transcript.self, from: .array(entries)) })
        #expect(codingErrorSummary(missing) == "missing [1].contextOptions")
    }

    /// The decoding error `body` throws, nil if it returns or throws another error.
    static func decodingError(_ body: () throws -> Transcript) -> DecodingError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? DecodingError
        }
    }

    static func kind(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound: "keyNotFound"
        case .typeMismatch: "typeMismatch"
        case .valueNotFound: "valueNotFound"
        case .dataCorrupted: "dataCorrupted"
        @unknown default: "unknown"
        }
    }
}
