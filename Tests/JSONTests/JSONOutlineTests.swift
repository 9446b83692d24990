// Outlines place every value on its own bytes: against Foundation's JSONSerialization as the
// reference, the bytes of each part's range, read alone, are that part of the whole document.
// Time cap: 5 s.
import TestSupport
import Foundation
import JSON
import Testing

@Suite struct JSONOutlineTests {
    /// The value JSONSerialization reads from `bytes[range]` alone.
    private func reference(_ bytes: [UInt8], _ range: Range<Int>) throws -> Tree {
        Tree(foundation: try JSONSerialization.jsonObject(with: Data(bytes[range]), options: .fragmentsAllowed))
    }

    /// Walks `outline` and checks each part's bytes against the reference's part at the same place.
    private func check(_ outline: JSONOutline, _ bytes: [UInt8], expected: Tree, text: String) throws {
        #expect(try reference(bytes, outline.range) == expected, "\(text) at \(outline.range)")
        // A range starts and ends on the value itself, never on white space.
        #expect(![0x20, 0x0A, 0x09, 0x0D].contains(bytes[outline.range.lowerBound]) && ![0x20, 0x0A, 0x09, 0x0D].contains(bytes[outline.range.upperBound - 1]))
        switch (outline.kind, expected) {
        case let (.string(value), .string(reference)): #expect(value == reference)
        case let (.array(elements), .array(reference)):
            #expect(elements.count == reference.count, "\(text)")
            for (element, part) in zip(elements, reference) { try check(element, bytes, expected: part, text: text) }
        case let (.object(members), .object(reference)):
            #expect(Set(members.map(\.key)) == Set(reference.keys), "\(text)")
            for member in members {
                guard let part = reference[member.key] else { continue }  // recorded just above
                try check(member.value, bytes, expected: part, text: text)
            }
        case (.scalar, .null), (.scalar, .bool), (.scalar, .number): break
        default: Issue.record("\(text): outline \(outline.kind) where the reference reads \(expected)")
        }
    }

    @Test func everyPartsBytesReadAsThatPart() throws {
        var random = SplitMix64(seed: 11)
        for _ in 0..<1_000 {
            let text = " \n" + randomDocument(&random) + "\t"
            let bytes = Array(text.utf8)
            let whole = Tree(foundation: try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed))
            try check(try JSONOutline(parsing: text), bytes, expected: whole, text: text)
        }
    }

    /// A value inside other text: its range in those bytes and the offset after it.
    @Test func aValueInsideText() throws {
        let text = #"call: {"name": "f", "arguments": {"s": "}\""}} then text"#
        let bytes = Array(text.utf8)
        let (outline, end) = try JSONOutline.read(valueIn: bytes, from: 5)
        #expect(String(decoding: bytes[outline.range], as: UTF8.self) == #"{"name": "f", "arguments": {"s": "}\""}}"#)
        #expect(end == outline.range.upperBound)
        #expect(outline["name"]?.string == "f")
        let arguments = try #require(outline["arguments"])
        #expect(String(decoding: bytes[arguments.range], as: UTF8.self) == #"{"s": "}\""}"#)
        #expect(throws: JSONReadError.self) { try JSONOutline(parsing: #"{"a": 1} x"#) }
        #expect(throws: JSONReadError.self) { try JSONOutline.read(valueIn: Array(#"{"a": }"#.utf8), from: 0) }
    }
}
