// Hand-written documents the matcher must accept (and that the independent references validate) or reject.
import Foundation
import Grammar
import Testing

/// Feeds the whole text; true when every byte is accepted and the document is complete.
private func matches(_ grammar: JSONGrammar, _ text: String) throws -> Bool {
    var matcher = try JSONMatcher(grammar: grammar)
    return matcher.feed(Array(text.utf8)) && matcher.isComplete
}

private func expectAccepted(_ grammar: JSONGrammar, _ documents: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
    for document in documents {
        #expect(try matches(grammar, document), "should accept \(document)", sourceLocation: sourceLocation)
        #expect(ReferenceValidator.validates(Array(document.utf8), grammar), "reference rejects \(document)", sourceLocation: sourceLocation)
    }
}

private func expectRejected(_ grammar: JSONGrammar, _ documents: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
    for document in documents {
        #expect(try !matches(grammar, document), "should reject \(document)", sourceLocation: sourceLocation)
    }
}

private func object(_ properties: [JSONProperty]) -> JSONGrammar { JSONGrammar(root: .object(properties: properties)) }

@Test func objectsKeepDeclaredOrderAndMaySkipOptionalProperties() throws {
    let grammar = object([
        JSONProperty(name: "a", shape: .integer(minimum: nil, maximum: nil), isOptional: true),
        JSONProperty(name: "b", shape: .boolean),
        JSONProperty(name: "c", shape: .null, isOptional: true),
    ])
    try expectAccepted(grammar, [#"{"a":1,"b":true}"#, #"{"b":false}"#, #"{"b":true,"c":null}"#, #"{ "a": -3, "b": true, "c": null}"#])
    try expectRejected(grammar, [#"{}"#, #"{"b":true,"a":1}"#, #"{"a":1}"#, #"{"b":true,}"#, #"{"b":true,"b":true}"#, #"{"c":null,"b":true}"#])
    try expectAccepted(object([JSONProperty(name: "x", shape: .null, isOptional: true)]), ["{}", "{ }", #"{"x":null}"#])
}

@Test func whitespaceIsOneOptionalSpaceAfterOpenersColonsAndCommas() throws {
    let grammar = JSONGrammar(prefix: "<", root: .object(properties: [
        JSONProperty(name: "k", shape: .array(items: .integer(minimum: 0, maximum: 9), minimumCount: 0, maximumCount: nil)),
    ]), suffix: ">")
    try expectAccepted(grammar, [#"<{"k":[]}>"#, #"<{ "k": [ 1, 2]}>"#, #"<{"k":[1,2]}>"#])
    try expectRejected(grammar, [#"<{  "k":[]}>"#, #"<{"k" :[]}>"#, #"<{"k":[] }>"#, #"<{"k":[1 ,2]}>"#, #" <{"k":[]}>"#,
                                 #"<{"k":[]}> "#, #"< {"k":[]}>"#, #"<{"k":[]} >"#, "<{\"k\":\n[]}>", #"<{"k":[1,2]}>>"#])
}

@Test func stringsFollowJSONAndUTF8Rules() throws {
    let grammar = JSONGrammar(root: .string(.any))
    try expectAccepted(grammar, [#""""#, #""a\"b\\c\/d\b\f\n\r\t""#, #""\u00e9\u20AC""#, "\"é€😀\"", "\"\u{7F}\""])
    try expectRejected(grammar, ["\"a\nb\"", "\"\t\"", #""\x""#, #""\u12""#, #""\ud83d\ude00""#, #""abc"#, #""a""#+" "])
    // Invalid UTF-8: a lone continuation byte, an overlong form, a surrogate, a truncated sequence.
    for bytes: [UInt8] in [[0x22, 0x80, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22], [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22]] {
        var matcher = try JSONMatcher(grammar: grammar)
        #expect(!(matcher.feed(bytes) && matcher.isComplete), "accepted \(bytes)")
    }
    // A character split across feeds is fine.
    var matcher = try JSONMatcher(grammar: grammar)
    for byte in Array("\"😀\"".utf8) {
        let accepted = matcher.feed(byte)
        #expect(accepted)
    }
    #expect(matcher.isComplete)
}

@Test func choicesAllowExactlyOneValue() throws {
    let grammar = JSONGrammar(root: .string(.choices(["red", "re", "say \"hi\"", "a\\b", "é"])))
    try expectAccepted(grammar, [#""red""#, #""re""#, #""say \"hi\"""#, #""a\\b""#, "\"é\""])
    try expectRejected(grammar, [#""r""#, #""redd""#, #""blue""#, #""""#, #""say "hi"""#])
}

@Test func patternsMustFullyMatch() throws {
    let grammar = JSONGrammar(root: .string(.pattern(#"[A-Z]{3}\-\d+"#)))
    try expectAccepted(grammar, [#""ABC-1""#, #""XYZ-0042""#, #""AB\u0043-9""#])
    try expectRejected(grammar, [#""AB-1""#, #""ABC-""#, #""abc-1""#, #""ABC-1x""#, #""ABCD-1""#])
    // A branch that can never finish (an empty class) must not keep a string alive.
    let deadBranch = JSONGrammar(root: .string(.pattern(#"ab|ac[^\s\S]"#)))
    var matcher = try JSONMatcher(grammar: deadBranch)
    let verdicts = Array(#""ab""#.utf8).map { matcher.feed($0) }
    #expect(verdicts == [true, true, true, true] && matcher.isComplete)
    var dead = try JSONMatcher(grammar: deadBranch)
    let deadVerdicts = Array(#""ac"#.utf8).map { dead.feed($0) }
    #expect(deadVerdicts == [true, true, false])
    let quoted = JSONGrammar(root: .string(.pattern(#"a"\\b\n"#)))
    try expectAccepted(quoted, [#""a\"\\b\n""#])
}

@Test func integersRespectSyntaxDigitsAndRanges() throws {
    let unbounded = JSONGrammar(root: .array(items: .integer(minimum: nil, maximum: nil), minimumCount: 0, maximumCount: nil))
    try expectAccepted(unbounded, ["[0,-7,123456789012345,-123456789012345]"])
    try expectRejected(unbounded, ["[01]", "[-]", "[1.5]", "[1e3]", "[+1]", "[1234567890123456]", "[-0]", "[--1]"])
    let month = JSONGrammar(root: .array(items: .integer(minimum: 1, maximum: 12), minimumCount: 0, maximumCount: nil))
    try expectAccepted(month, ["[1,9,10,12]"])
    try expectRejected(month, ["[0]", "[13]", "[-1]", "[100]"])
    // Digits are refused as soon as no completion is in range.
    var matcher = try JSONMatcher(grammar: month)
    let verdicts = ["[", "0", "-", "1", "3", "2"].map { matcher.feed(UInt8(ascii: Unicode.Scalar($0)!)) }
    #expect(verdicts == [true, false, false, true, false, true])
    var symmetric = try JSONMatcher(grammar: JSONGrammar(root: .integer(minimum: -5, maximum: 5)))
    let minusAccepted = symmetric.feed(UInt8(ascii: "-"))
    #expect(minusAccepted)
    for digit in UInt8(ascii: "0")...UInt8(ascii: "9") {
        var copy = symmetric
        let accepted = copy.feed(digit)
        #expect(accepted == (UInt8(ascii: "1")...UInt8(ascii: "5")).contains(digit), "digit \(digit)")
    }
}

@Test func numbersAllowShortFractionsWithinRange() throws {
    let grammar = JSONGrammar(root: .array(items: .number(minimum: -1.5, maximum: 2.25), minimumCount: 0, maximumCount: nil))
    try expectAccepted(grammar, ["[0,-1.5,2.25,1.999999,-0.5,2.2]"])
    try expectRejected(grammar, ["[2.26]", "[-1.6]", "[1.]", "[.5]", "[1.1234567]", "[3]", "[1e0]", "[-0]"])
    // Bounds that binary floating point cannot represent exactly are still reachable themselves.
    let decimalBounds = JSONGrammar(root: .array(items: .number(minimum: 0.035, maximum: 0.57), minimumCount: 0, maximumCount: nil))
    try expectAccepted(decimalBounds, ["[0.035,0.57,0.0350,0.570,0.3]"])
    try expectRejected(decimalBounds, ["[0.034999]", "[0.570001]", "[0]", "[1]"])
    let negativeBounds = JSONGrammar(root: .array(items: .number(minimum: -1.1, maximum: -0.29), minimumCount: 0, maximumCount: nil))
    try expectAccepted(negativeBounds, ["[-1.1,-1.10,-0.29,-0.290,-0.5]"])
    try expectRejected(negativeBounds, ["[-0.289999]", "[-1.100001]", "[0.5]", "[-0]"])
}

@Test func arraysRespectCounts() throws {
    let grammar = JSONGrammar(root: .array(items: .boolean, minimumCount: 1, maximumCount: 2))
    try expectAccepted(grammar, ["[true]", "[true,false]", "[ true, false]"])
    try expectRejected(grammar, ["[]", "[true,true,true]", "[true,]"])
}

@Test func alternativesSharingAPrefixAreTrackedTogether() throws {
    try expectAccepted(Grammars.toolCall, [
        "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}\n</tool_call>",
        "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"Europe/Paris\"}}\n</tool_call>",
    ])
    try expectRejected(Grammars.toolCall, [
        "<tool_call>\n{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}\n</tool_call>",
        "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"zone\":\"Europe/Paris\"}}\n</tool_call>",
        "{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}",
    ])
}

@Test func recursiveDefinitionsNest() throws {
    try expectAccepted(Grammars.tree, [#"{"value":1}"#, #"{"value":-2,"label":null,"children":[{"value":3,"children":[{"value":0,"label":"x"}]}]}"#])
    try expectRejected(Grammars.tree, [#"{"value":6}"#, #"{"children":[]}"#, #"{"value":1,"children":[{}]}"#])
}

@Test func nothingIsAcceptedAfterCompletion() throws {
    var matcher = try JSONMatcher(grammar: JSONGrammar(root: .boolean, suffix: "!"))
    let accepted = matcher.feed(Array("true!".utf8))
    #expect(accepted && matcher.isComplete)
    let after = [UInt8(ascii: " "), UInt8(ascii: "!"), UInt8(ascii: "t"), 0x0A].map { matcher.feed($0) }
    #expect(after == [false, false, false, false])
}

@Test func unenforceableSchemasThrowTypedErrors() {
    #expect(throws: GrammarError.self) { try JSONMatcher(grammar: JSONGrammar(root: .integer(minimum: 5, maximum: 1))) }
    #expect(throws: GrammarError.self) { try JSONMatcher(grammar: JSONGrammar(root: .number(minimum: 2, maximum: 1))) }
    #expect(throws: GrammarError.self) { try JSONMatcher(grammar: JSONGrammar(root: .string(.choices([])))) }
    #expect(throws: GrammarError.self) { try JSONMatcher(grammar: JSONGrammar(root: .reference("Missing"))) }
    #expect(throws: GrammarError.self) { try JSONMatcher(grammar: JSONGrammar(root: .array(items: .null, minimumCount: 3, maximumCount: 2))) }
    let selfRequiring = JSONGrammar(root: .reference("A"), definitions: ["A": .object(properties: [JSONProperty(name: "a", shape: .reference("A"))])])
    #expect(throws: GrammarError.noFiniteDocument) { try JSONMatcher(grammar: selfRequiring) }
    for pattern in [#"(a"#, #"a)"#, #"\bword"#, #"(?=a)"#, #"a++"#, #"[[:alpha:]]"#, #"\p{L}"#, #"a{2,1}"#, #"\1"#, #"a^b"#, "*a", #"[a-z&&b]"#] {
        #expect(throws: GrammarError.self, "pattern \(pattern)") { try JSONMatcher(grammar: JSONGrammar(root: .string(.pattern(pattern)))) }
    }
}
