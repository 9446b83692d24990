import Foundation
import JSON
import LanguageModelAPI
import Testing
@testable import Server

/// A client's JSON Schema read from the request's JSON tree (`JSONSchemaInput`, no Foundation)
/// is the schema Foundation's `JSONDecoder` reads from the same text through `GenerationSchema`'s
/// `Codable` conformance: the same resolved schema (its JSON Schema text, which writes every
/// node, bound, definition and order) for nested objects, definitions out of key order, unions,
/// enums, bounds and arrays, and both refuse the same malformed schemas. Time cap: under 1 s.
@Suite struct JSONSchemaInputTests {
    /// Documents that carry `x-order` already, so both readings see the same document.
    static let schemas = [
        #"{"type":"object","properties":{"b":{"type":"number","minimum":0.5,"maximum":7},"a":{"type":"string","description":"a name"}},"required":["b"],"x-order":["b","a"]}"#,
        ##"{"type":"object","properties":{"z":{"$ref":"#/$defs/Zed"},"y":{"$ref":"#/$defs/Why"}},"required":["z","y"],"x-order":["z","y"],"$defs":{"Zed":{"type":"object","properties":{"q":{"type":"number"}},"required":["q"],"x-order":["q"]},"Why":{"type":"string","enum":["p","r"]}}}"##,
        #"{"type":"object","properties":{"u":{"anyOf":[{"type":"string"},{"type":"integer"}]},"n":{"type":["string","null"]},"l":{"type":"array","items":{"type":"boolean"},"minItems":1,"maxItems":3}},"required":["u","l"],"x-order":["u","n","l"]}"#,
        #"{"type":"string","pattern":"^[a-z]+$","title":"Word"}"#,
    ]

    @Test func theTreeReadsAsTheDecoderReadsTheText() throws {
        for text in Self.schemas {
            let mine = try JSONSchemaInput.schema(try JSONValue(parsing: text), param: "p")
            let reference = try JSONDecoder().decode(GenerationSchema.self, from: Data(text.utf8))
            #expect(mine.schemaPromptText() == reference.schemaPromptText(), "\(text)")
            #expect(mine.name == reference.name)
        }
    }

    /// Without `x-order`, properties keep the client's order; `name` titles an untitled schema.
    @Test func clientOrderAndName() throws {
        let mine = try JSONSchemaInput.schema(try JSONValue(parsing: #"{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}}}"#),
                                              param: "p", name: "Pair")
        let reference = try JSONDecoder().decode(GenerationSchema.self, from: Data(
            #"{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}},"x-order":["b","a"],"title":"Pair"}"#.utf8))
        #expect(mine.schemaPromptText() == reference.schemaPromptText())
        #expect(mine.name == "Pair")
    }

    @Test func malformedSchemasAreRefusedAlike() throws {
        for text in [##"{"type":"object","properties":{"a":{"$ref":"#/$defs/Missing"}}}"##, #"{"anyOf":[]}"#, #"{"type":7}"#, #"[1]"#] {
            let decoded = (try? JSONDecoder().decode(GenerationSchema.self, from: Data(text.utf8))) != nil
            #expect(!decoded, "the reference takes \(text)")
            let value = try JSONValue(parsing: text)
            do {
                _ = try JSONSchemaInput.schema(value, param: "tools[0].function.parameters")
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.status == 400 && error.param == "tools[0].function.parameters", "\(error)")
                #expect(!error.message.contains("\n"))
            }
        }
    }
}
