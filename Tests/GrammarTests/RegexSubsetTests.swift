// The pattern automaton's full-match verdicts against Swift's own `Regex` (scalar semantics, ASCII
// character classes) on many generated strings per pattern.
import TestSupport
import Foundation
import Grammar
import Testing

/// Full-match verdict of the grammar's automaton, through the public matcher: the JSON string whose
/// content is `text` completes the document exactly when the pattern matches.
private func grammarMatches(_ matcher: JSONMatcher, _ text: String) -> Bool {
    var copy = matcher
    let body = text.unicodeScalars.flatMap { scalar -> [UInt8] in
        switch scalar {
        case "\"": return Array(#"\""#.utf8)
        case "\\": return Array(#"\\"#.utf8)
        case _ where scalar.value < 0x20: return Array(String(format: "\\u%04x", scalar.value).utf8)
        default: return Array(String(scalar).utf8)
        }
    }
    return copy.feed([UInt8(ascii: "\"")] + body + [UInt8(ascii: "\"")]) && copy.isComplete
}

private let patterns = [
    #"[A-Z]{3}\-\d+"#, #"^a(b|cd)*e?$"#, #"(?:ab|a)c"#, #"\w+@\w+\.com"#, #"[^a-c]{2,4}"#, #"\d{1,3}(,\d{3})*"#,
    #"a.c"#, #"\s*x\S"#, #"[\d_-]+"#, #"(a|b|)+c{0}d{2,}"#, #"\D\W"#, #"colou?r"#, #"[.]\.\?\*"#, #"\x41\u{42}\u0043"#,
    #"(a*)*b"#, #"[a-]z"#, #"é+[α-ω]"#, "a\\tb", #"x{2}?y*?"#, #"[^\s]"#,
]

private let alphabet: [Unicode.Scalar] = ["a", "b", "c", "d", "e", "r", "o", "u", "x", "y", "z", "A", "B", "C", "Z", "0", "1", "9", "_",
                                          "-", ".", ",", "@", " ", "\t", "\n", "\r", "é", "α", "λ", "ω", "\"", "\\", "/", "?", "*", "m"]

@Test(arguments: patterns)
func automatonAgreesWithSwiftRegex(pattern: String) throws {
    let regex = try Regex(pattern).matchingSemantics(.unicodeScalar).asciiOnlyCharacterClasses()
    let matcher = try JSONMatcher(grammar: JSONGrammar(root: .string(.pattern(pattern))))
    var generator = seededGenerator(seed: UInt64(pattern.utf8.count))
    // Random strings rarely match, so also mutate the shortest match the automaton proposes.
    let shortest = String(decoding: matcher.shortestCompletion, as: UTF8.self)
    let seedText = (try? JSONSerialization.jsonObject(with: Data(shortest.utf8), options: .fragmentsAllowed) as? String) ?? ""
    var matchesSeen = 0
    for round in 0..<400 {
        var text: String
        if round % 2 == 0 {
            text = String(String.UnicodeScalarView((0..<Int.random(in: 0...8, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        } else {
            var scalars = Array(seedText.unicodeScalars)
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let choice = Int.random(in: 0..<3, using: &generator)
                let position = Int.random(in: 0...scalars.count, using: &generator)
                if choice == 0 || scalars.isEmpty { scalars.insert(alphabet.randomElement(using: &generator)!, at: position) }
                else if choice == 1 { scalars.remove(at: min(position, scalars.count - 1)) }
                else { scalars.append(contentsOf: scalars) }
            }
            text = String(String.UnicodeScalarView(scalars))
        }
        let expected = (try regex.wholeMatch(in: text)) != nil
        if expected { matchesSeen += 1 }
        #expect(grammarMatches(matcher, text) == expected, "pattern \(pattern) on \(text.debugDescription)")
    }
    #expect(matchesSeen > 0, "no generated string matched \(pattern); the comparison is one-sided")
}
