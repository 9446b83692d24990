// The free-form object shape (`JSONShape.anyObject`, `response_format` `json_object`): any keys,
// any values, nesting bounded. Checked against documents JSONSerialization writes and against the
// naive reference validator. Time cap: about 1 s.
import Foundation
import Grammar
import Testing
import TestSupport

private func matches(_ grammar: JSONGrammar, _ text: String) throws -> Bool {
    var matcher = try JSONMatcher(grammar: grammar)
    return matcher.feed(Array(text.utf8)) && matcher.isComplete
}

@Test func freeObjectsTakeAnyKeysAndValuesButOnlyObjects() throws {
    let grammar = Grammars.freeObject
    for document in ["{}", "{ }", #"{"":""}"#, #"{"a":1,"a":2}"#, #"{"é \"q\" \u00e9":[true,false,null,-0.5,"x"]}"#,
                     #"{ "a": { "b": [ 1, "c"]}, "e": []}"#, #"{"a":{"b":{"c":1}}}"#, #"{"a":[[1,2],[]]}"#] {
        #expect(try matches(grammar, document), "should accept \(document)")
        #expect(ReferenceValidator.validates(Array(document.utf8), grammar), "reference rejects \(document)")
    }
    // Not an object at the root; JSON syntax errors; one level deeper than the bound (3).
    for document in ["[]", #""a""#, "1", "null", "true", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, #"{a:1}"#, #"{"a" :1}"#,
                     #"{"a":{"b":{"c":[]}}}"#, #"{"a":[[[1]]]}"#, #"{"a":1}}"#, #"{"a":01}"#] {
        #expect(try !matches(grammar, document), "should reject \(document)")
    }
}

/// A random JSON value nesting at most `depth` containers deep, as Foundation objects.
private func randomValue(_ generator: inout SplitMix64, depth: Int) -> Any {
    let kinds = depth > 0 ? 7 : 5
    switch Int(generator.next() % UInt64(kinds)) {
    case 0: return randomKey(&generator)
    case 1: return Int(generator.next() % 2001) - 1000
    case 2: return Double(Int(generator.next() % 801) - 400) / 8   // exact in at most 3 decimals
    case 3: return generator.next() % 2 == 0
    case 4: return NSNull()
    case 5: return (0..<Int(generator.next() % 4)).map { _ in randomValue(&generator, depth: depth - 1) }
    default: return randomObject(&generator, depth: depth - 1)
    }
}

private func randomObject(_ generator: inout SplitMix64, depth: Int) -> [String: Any] {
    var object: [String: Any] = [:]
    for _ in 0..<Int(generator.next() % 4) { object[randomKey(&generator)] = randomValue(&generator, depth: depth) }
    return object
}

/// Keys with quotes, backslashes, slashes, control characters and non-ASCII text.
private func randomKey(_ generator: inout SplitMix64) -> String {
    let pieces = ["a", "key", "\"", "\\", "/", "\n", "\u{1}", "é", "😀", " ", "€"]
    return (0..<Int(generator.next() % 4)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
}

@Test func everyObjectJSONSerializationWritesWithinTheBoundIsAccepted() throws {
    var matcher = try JSONMatcher(grammar: Grammars.freeObject)
    let start = matcher
    var generator = SplitMix64(seed: 36)
    for index in 0..<400 {
        // Depth 3 in all: the root object and two more levels of containers.
        let object = randomObject(&generator, depth: 2)
        let text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        matcher = start
        #expect(matcher.feed(Array(text.utf8)) && matcher.isComplete, "case \(index): \(text)")
    }
}
