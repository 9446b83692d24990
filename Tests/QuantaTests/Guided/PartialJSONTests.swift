import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite struct PartialJSONTests {
    /// Every prefix of every document (by character) parses, and what it holds agrees with the
    /// complete document. Documents whose whole text is a number are left out: a prefix of `12`
    /// is the complete document `1`.
    @Test(arguments: GeneratedContentJSONTests.documents + [
        " { \"spaced\" : [ 1 , { \"x\" : \"y\" } ] , \"t\" : true } ",
        #"{"n":-12.5e-3,"m":[0,10,-0]}"#,
    ])
    func everyPrefixIsConsistent(document: String) throws {
        let full = try GeneratedContent(json: document)
        for length in 0...document.count {
            let prefix = String(document.prefix(length))
            let partial = try GeneratedContent(json: prefix)
            let isWhole = prefix.trimmingCharacters(in: .whitespacesAndNewlines) == document.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(partial.isComplete == isWhole, "prefix \(prefix)")
            #expect(Self.consistent(partial, with: full), "prefix \(prefix) read \(partial.jsonString)")
        }
    }

    @Test func cutValuesReadAsDocumented() throws {
        func read(_ text: String) throws -> String { try GeneratedContent(json: text).jsonString }
        #expect(try read(#"{"title":"Marg"#) == #"{"title":"Marg"}"#)
        #expect(try read(#"{"title":"Margherita","serv"#) == #"{"title":"Margherita"}"#)
        #expect(try read(#"{"title":"Margherita","servings":"#) == #"{"title":"Margherita"}"#)
        #expect(try read(#"{"servings":12."#) == #"{"servings":12}"#)
        #expect(try read(#"{"ok":tr"#) == #"{"ok":true}"#)
        #expect(try read(#"[1,2,-"#) == "[1,2]")
        #expect(try read(#"["a\u00"#) == #"["a"]"#)
        #expect(try read(#"["\ud83d"#) == #"[""]"#)
        #expect(try read("") == "null")
        #expect(try GeneratedContent(json: "").isComplete == false)
    }

    @Test func nestedCompletenessIsTracked() throws {
        let content = try GeneratedContent(json: #"{"done":"yes","items":[1,2"#)
        #expect(!content.isComplete)
        guard case .structure(let properties, _) = content.kind else { Issue.record("not a structure"); return }
        #expect(properties["done"]?.isComplete == true)
        #expect(properties["items"]?.isComplete == false)
        guard case .array(let items)? = properties["items"]?.kind else { Issue.record("not an array"); return }
        #expect(items.map(\.isComplete) == [true, false])
    }

    /// Whether a value read from a prefix is a possible start of `full`.
    static func consistent(_ partial: GeneratedContent, with full: GeneratedContent) -> Bool {
        if partial.isComplete { return partial == full }
        switch (partial.kind, full.kind) {
        case (.null, _):
            return true  // nothing read yet, or a cut `null`
        case (.bool(let a), .bool(let b)):
            return a == b
        case (.number, .number):
            return true  // a cut number holds its digits so far, not a prefix of the value
        case (.string(let a), .string(let b)):
            return b.hasPrefix(a)
        case (.array(let a), .array(let b)):
            guard a.count <= b.count else { return false }
            return zip(a, b).enumerated().allSatisfy { index, pair in
                index == a.count - 1 ? consistent(pair.0, with: pair.1) : pair.0.isComplete && pair.0 == pair.1
            }
        case (.structure(let a, let aKeys), .structure(let b, let bKeys)):
            guard aKeys.count <= bKeys.count, Array(bKeys.prefix(aKeys.count)) == aKeys else { return false }
            return aKeys.enumerated().allSatisfy { index, key in
                index == aKeys.count - 1 ? consistent(a[key]!, with: b[key]!) : a[key]!.isComplete && a[key]! == b[key]!
            }
        default:
            return false
        }
    }
}
