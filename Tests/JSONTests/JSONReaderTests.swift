// The package's one JSON reader and string escaping, against Foundation's JSONSerialization as
// an independent reference: random documents read alike, every prefix of a document reads in
// prefix mode and fails in whole-document mode, invalid text fails in both. Time cap: 5 s.
import TestSupport
import Foundation
import JSON
import Testing

/// A plain tree, to compare with what JSONSerialization reads.
indirect enum Tree: Equatable {
    case null, bool(Bool), number(Double), string(String), array([Tree]), object([String: Tree])

    init(foundation value: Any) {
        switch value {
        case is NSNull: self = .null
        case let number as NSNumber where String(cString: number.objCType) == "c": self = .bool(number.boolValue)
        case let number as NSNumber: self = .number(number.doubleValue)
        case let string as String: self = .string(string)
        case let array as [Any]: self = .array(array.map(Tree.init(foundation:)))
        case let object as [String: Any]: self = .object(object.mapValues(Tree.init(foundation:)))
        default: self = .null
        }
    }
}

/// Builds trees; records whether anything was incomplete.
struct TreeBuilder: JSONValueBuilder {
    func null(complete: Bool) -> (Tree, Bool) { (.null, complete) }
    func bool(_ value: Bool, complete: Bool) -> (Tree, Bool) { (.bool(value), complete) }
    func number(_ text: String, _ value: Double, complete: Bool) -> (Tree, Bool) { (.number(value), complete) }
    func string(_ value: String, complete: Bool) -> (Tree, Bool) { (.string(value), complete) }
    func array(_ elements: [(Tree, Bool)], complete: Bool) -> (Tree, Bool) {
        (.array(elements.map(\.0)), complete && elements.allSatisfy(\.1))
    }
    func object(_ members: [(key: String, value: (Tree, Bool))], complete: Bool) -> (Tree, Bool) {
        var object: [String: Tree] = [:]
        for member in members { object[member.key] = member.value.0 }
        return (.object(object), complete && members.allSatisfy(\.value.1))
    }
}

/// A random JSON document, written by hand with varied spacing, escapes and numbers.
func randomDocument(_ random: inout SplitMix64, depth: Int = 0) -> String {
    let space = [" ", "", "\n", "\t "].randomElement(using: &random)!
    switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &random) {
    case 0: return "null"
    case 1: return Bool.random(using: &random) ? "true" : "false"
    case 2:
        let forms = ["0", "-0", "12", "-7", "3.25", "1e3", "-2.5E-3", "123456789", "0.000125", "6.02e+23"]
        return forms.randomElement(using: &random)!
    case 3, 4:
        let pieces = ["a", "é", "\\n", "\\\"", "\\\\", "\\/", "\\u00e9", "\\ud83d\\ude00", "😀", "\\t", " ", "\\u0001", "z"]
        return "\"" + (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined() + "\""
    case 5:
        let items = (0..<Int.random(in: 0...4, using: &random)).map { _ in randomDocument(&random, depth: depth + 1) }
        return "[" + space + items.joined(separator: "," + space) + space + "]"
    default:
        let members = (0..<Int.random(in: 0...4, using: &random)).map { index in
            "\"k\(index)\"" + space + ":" + space + randomDocument(&random, depth: depth + 1)
        }
        return "{" + space + members.joined(separator: "," + space) + space + "}"
    }
}

@Suite struct JSONReaderTests {
    @Test func randomDocumentsReadAsFoundationReadsThem() throws {
        var random = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let text = randomDocument(&random)
            let reference = Tree(foundation: try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed))
            let read = try #require(try JSONReader.read(text, with: TreeBuilder()))
            #expect(read.0 == reference, "\(text)")
            #expect(read.1)
        }
    }

    @Test func everyPrefixReadsInPrefixModeOnly() throws {
        var random = SplitMix64(seed: 11)
        for _ in 0..<200 {
            let text = "[" + randomDocument(&random) + "]"
            let bytes = Array(text.utf8)
            for cut in 0..<bytes.count {
                let prefix = String(decoding: bytes[..<cut], as: UTF8.self)
                guard prefix.utf8.count == cut else { continue }  // cut inside a character
                let partial = try JSONReader.read(prefix, with: TreeBuilder(), acceptingPrefix: true)
                #expect(partial == nil || partial?.1 == false, "\(prefix)")
                #expect(throws: JSONReadError.self, "\(prefix)") { try JSONReader.read(prefix, with: TreeBuilder()) }
            }
        }
    }

    @Test func invalidTextFailsAsInFoundation() {
        let invalid = ["", " ", "01", "-", "1.", ".5", "1e", "+1", "{\"a\" 1}", "[1 2]", "\"\u{01}\"", "\"\\x\"",
                       "\"\\u12g4\"", "tru", "nul", "[", "{\"a\":", "1 2", "{a:1}", "'a'", "[1]]"]
        for text in invalid {
            #expect(throws: JSONReadError.self, "\(text.debugDescription)") { try JSONReader.read(text, with: TreeBuilder()) }
            #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) == nil, "\(text.debugDescription)")
        }
        // Trailing commas: RFC 8259 and Python's json.loads reject them (Foundation on Linux
        // accepts them, so it is no reference here).
        for text in ["[1,]", "{\"a\":1,}"] {
            #expect(throws: JSONReadError.self, "\(text)") { try JSONReader.read(text, with: TreeBuilder()) }
        }
    }

    @Test func prefixesReadAsFarAsTheyGo() throws {
        #expect(try JSONReader.read("[12.", with: TreeBuilder(), acceptingPrefix: true)! == (.array([.number(12)]), false))
        #expect(try JSONReader.read("tr", with: TreeBuilder(), acceptingPrefix: true)! == (.bool(true), false))
        #expect(try JSONReader.read(#"{"a":1,"b""#, with: TreeBuilder(), acceptingPrefix: true)! == (.object(["a": .number(1)]), false))
        #expect(try JSONReader.read(#""ab\u00"#, with: TreeBuilder(), acceptingPrefix: true)! == (.string("ab"), false))
        #expect(try JSONReader.read("  ", with: TreeBuilder(), acceptingPrefix: true) == nil)
        #expect(try JSONReader.read("12", with: TreeBuilder(), acceptingPrefix: true)! == (.number(12), true))
        #expect(throws: JSONReadError.self) { try JSONReader.read("[1}", with: TreeBuilder(), acceptingPrefix: true) }
    }

    /// A value embedded in other text reads once, and says where it ended.
    @Test func valuesEmbeddedInTextReadToTheirEnd() throws {
        let text = Array(#"call: {"name": "f", "arguments": {"a": [1, "}"]}}; {"next": 2}"#.utf8)
        let (first, end) = try JSONReader.read(valueIn: text, from: 6, with: TreeBuilder())
        #expect(first.0 == .object(["name": .string("f"), "arguments": .object(["a": .array([.number(1), .string("}")])])]))
        #expect(String(decoding: text[end...], as: UTF8.self) == #"; {"next": 2}"#)
        let (second, secondEnd) = try JSONReader.read(valueIn: text, from: end + 1, with: TreeBuilder())
        #expect(second.0 == .object(["next": .number(2)]) && secondEnd == text.count)
        #expect(throws: JSONReadError.self) { try JSONReader.read(valueIn: Array(#"x {"a": [1, 2}"#.utf8), from: 2, with: TreeBuilder()) }
        #expect(throws: JSONReadError.self) { try JSONReader.read(valueIn: Array(#"x {"a": "#.utf8), from: 2, with: TreeBuilder()) }
    }

    @Test func loneSurrogatesReadAsReplacementCharacters() throws {
        #expect(try JSONReader.read(#""\ud800""#, with: TreeBuilder())!.0 == .string("\u{FFFD}"))
        #expect(try JSONReader.read(#""\udc00x""#, with: TreeBuilder())!.0 == .string("\u{FFFD}x"))
        #expect(try JSONReader.read(#""\ud800\n""#, with: TreeBuilder())!.0 == .string("\u{FFFD}\n"))
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONReadError.self) { try JSONReader.read(deep, with: TreeBuilder()) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(try JSONReader.read(fine, with: TreeBuilder()) != nil)
    }
}

@Suite struct JSONStringTests {
    /// Quoted strings read back through Foundation to the same text, and escape only what JSON
    /// requires (as Python's json.dumps with ensure_ascii=False).
    @Test func quotedStringsRoundTripAndEscapeOnlyWhatJSONRequires() throws {
        var samples = ["", "plain", "é 😀 ü", "quote \" backslash \\ slash /", "\u{7F}\u{80}\u{2028}"]
        samples.append(String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }))
        for text in samples {
            let quoted = JSONString.quoted(text)
            let back = try JSONSerialization.jsonObject(with: Data(quoted.utf8), options: .fragmentsAllowed) as? String
            #expect(back == text, "\(quoted)")
        }
        #expect(JSONString.quoted("a\"b\\c/é\n\u{1}\u{1F}\t\u{8}\u{C}\r") == #""a\"b\\c/é\n\u0001\u001f\t\b\f\r""#)
        #expect(JSONString.bytes(of: "é") == Array("é".utf8))
        #expect(JSONString.bytes(of: "\u{1}") == Array(#"\u0001"#.utf8))
    }
}
