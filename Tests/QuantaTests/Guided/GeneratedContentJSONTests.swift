import Foundation
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite struct GeneratedContentJSONTests {
    /// Compact documents (as the writer writes them) covering every kind, escapes, nesting and
    /// non-ASCII text.
    static let documents: [String] = [
        #"{"name":"Margherita","servings":4,"vegetarian":true,"rating":4.5,"tags":["pizza","classic"],"notes":null}"#,
        #"[1,-2,3.25,-0.5,1.0E+21,0,true,false,null,"x",[],{}]"#,
        #"{"quote":"she said \"hi\"","path":"C:\\dir","lines":"a\nb\tc","control":"\u0001","emoji":"😀 café","slash":"/"}"#,
        #"{"z":1,"a":2,"m":{"y":[{"k":"v"},{"k":"w","deep":[[[]]]}],"b":false}}"#,
        #""just a string""#,
        #"[{"id":1,"children":[{"id":2,"children":[]}]},{"id":3,"children":null}]"#,
        #"{"unicode":"\u00e9\ud83d\ude00","empty":"","spaces":"  "}"#,
        "true", "null", "[]", "{}",
    ]

    @Test(arguments: documents)
    func parsesLikeFoundation(document: String) throws {
        let content = try GeneratedContent(json: document)
        #expect(content.isComplete)
        #expect(JSONOracle.matches(content, try JSONOracle.parse(document)), "\(content.jsonString)")
    }

    @Test(arguments: documents)
    func roundTripsThroughJSONString(document: String) throws {
        let content = try GeneratedContent(json: document)
        let again = try GeneratedContent(json: content.jsonString)
        #expect(again == content)
        #expect(again.jsonString == content.jsonString)
        // The writer's output is valid JSON to Foundation, with the same value.
        #expect(JSONOracle.matches(content, try JSONOracle.parse(content.jsonString)))
    }

    @Test func keepsPropertyOrder() throws {
        let content = try GeneratedContent(json: #"{"z":1,"a":2,"m":3}"#)
        guard case .structure(_, let keys) = content.kind else { Issue.record("not a structure"); return }
        #expect(keys == ["z", "a", "m"])
        #expect(content.jsonString == #"{"z":1,"a":2,"m":3}"#)
    }

    @Test func whitespaceAndEscapesAreNormalized() throws {
        let content = try GeneratedContent(json: " {\n \"a\" : [ 1 , 2.50 ] ,\"b\":\"\\u0041\\/\" } \n")
        #expect(content.isComplete)
        #expect(content.jsonString == #"{"a":[1,2.5],"b":"A/"}"#)
    }

    @Test(arguments: [
        "{\"a\" 1}", "[1,]", "[1 2]", "tru e", "01", "{,}", "\"abc\" x", "{\"a\":1}}", "nul1", "-x", "1.e5", "\"\\x\"",
        "\"a\\u00zz\"", "\"tab\there\"", "{1:2}", "]", "@", "{\"a\":1,}", "[\"a\"\"b\"]", "1 2",
    ])
    func rejectsGarbage(text: String) {
        #expect(throws: GeneratedContent.ParsingError.self) { try GeneratedContent(json: text) }
        // Foundation agrees these are not JSON (a check on the test's own inputs), except for
        // trailing commas, which its parser tolerates although RFC 8259 does not allow them.
        if !text.contains(",]") && !text.contains(",}") {
            #expect(throws: (any Error).self) { try JSONOracle.parse(text) }
        }
    }

    @Test func parsingErrorKeepsTheText() {
        do {
            _ = try GeneratedContent(json: "[1,]")
            Issue.record("expected an error")
        } catch let error as GeneratedContent.ParsingError {
            #expect(error.rawContent == "[1,]")
            #expect(error.underlyingError != nil)
            #expect(error.errorDescription?.isEmpty == false)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func deepNestingThrowsInsteadOfCrashing() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: GeneratedContent.ParsingError.self) { try GeneratedContent(json: deep) }
    }
}
