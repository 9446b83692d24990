import Foundation
import JSON
import Testing

/// `JSONValue` reads what Foundation's `JSONSerialization` reads into the same values, keeps
/// member order, and writes text that reads back to the same value.
@Suite struct JSONValueTests {
    static let documents = [
        #"{"b": 1, "a": [true, false, null, -0.5, 1e3, "x\"y\\z\u00e9\ud83d\ude00"], "c": {"d": {}}}"#,
        #"[1, 2.25, -3, "tab\there", [], [[]]]"#,
        #""just a string""#,
        #"{"z": "last", "y": 12345678901234}"#,
    ]

    /// The value as Foundation objects, for comparison.
    func foundation(_ value: JSONValue) -> Any {
        switch value {
        case .null: return NSNull()
        case let .bool(b): return b
        case let .number(x, _): return x
        case let .string(s): return s
        case let .array(a): return a.map(foundation)
        case let .object(m): return Dictionary(m.map { ($0.key, foundation($0.value)) }) { _, last in last }
        }
    }

    @Test(arguments: documents) func readsAsFoundationDoes(_ text: String) throws {
        let ours = try JSONValue(parsing: text)
        let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        #expect(NSDictionary(dictionary: ["v": foundation(ours)]).isEqual(NSDictionary(dictionary: ["v": theirs])))
        // Written back, the text reads to the same value (order kept).
        #expect(try JSONValue(parsing: ours.jsonText) == ours)
        let again = try JSONSerialization.jsonObject(with: Data(ours.jsonText.utf8), options: .fragmentsAllowed)
        #expect(NSDictionary(dictionary: ["v": again]).isEqual(NSDictionary(dictionary: ["v": theirs])))
    }

    @Test func membersKeepTheirOrderAndTheLastDuplicateWins() throws {
        let value = try JSONValue(parsing: #"{"b": 1, "a": 2, "b": 3}"#)
        guard case let .object(members) = value else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["b", "a", "b"])
        #expect(value["b"] == .integer(3))
        #expect(JSONValue.number(2.5).jsonText == "2.5")
        #expect(JSONValue.number(3).jsonText == "3")
        #expect(JSONValue.number(.infinity) == .null)
    }

    @Test func badDocumentsThrow() {
        for text in ["", "{", "[1,]", "{\"a\" 1}", "01", "\"\u{01}\""] {
            #expect(throws: JSONReadError.self) { try JSONValue(parsing: text) }
        }
    }
}
