import Grammar
import Testing

@Test func grammarValuesCompareByContent() {
    let a = JSONGrammar(root: .object(properties: [JSONProperty(name: "n", shape: .integer(minimum: 0, maximum: 9))]))
    let b = JSONGrammar(root: .object(properties: [JSONProperty(name: "n", shape: .integer(minimum: 0, maximum: 9))]))
    #expect(a == b)
    #expect(a != JSONGrammar(root: .boolean))
}
