import Foundation
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite struct GenerationSchemaJSONTests {
    /// Recipe's schema written out by hand from the JSON Schema spec (2020-12 keywords `type`,
    /// `properties`, `required`, `items`, `minItems`/`maxItems`, `minimum`/`maximum`, `enum`,
    /// `$defs`/`$ref`, `title`, `description`, `additionalProperties`) plus `x-order`.
    static let recipeSchema = #"""
        {
          "title": "Recipe", "description": "A recipe", "type": "object",
          "properties": {
            "title": {"type": "string"},
            "cuisine": {"$ref": "#/$defs/Cuisine"},
            "servings": {"type": "integer", "minimum": 1, "maximum": 8},
            "ingredients": {"type": "array", "items": {"$ref": "#/$defs/Ingredient"}, "minItems": 1, "maxItems": 10},
            "notes": {"description": "Optional tips", "type": "string"}
          },
          "required": ["title", "cuisine", "servings", "ingredients"],
          "x-order": ["title", "cuisine", "servings", "ingredients", "notes"],
          "additionalProperties": false,
          "$defs": {
            "Cuisine": {"title": "Cuisine", "description": "The cuisine", "type": "string", "enum": ["italian", "thai", "mexican"]},
            "Ingredient": {
              "title": "Ingredient", "type": "object",
              "properties": {
                "name": {"type": "string"},
                "grams": {"description": "Weight in grams", "type": "number", "minimum": 0}
              },
              "required": ["name", "grams"], "x-order": ["name", "grams"], "additionalProperties": false
            }
          }
        }
        """#

    private func object(_ data: Data) throws -> NSDictionary {
        try #require(JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    @Test func recipeEncodesAsExpectedJSONSchema() throws {
        let encoded = try JSONEncoder().encode(Recipe.generationSchema)
        #expect(try object(encoded) == object(Data(Self.recipeSchema.utf8)), "\(String(decoding: encoded, as: UTF8.self))")
    }

    @Test func recursiveTypeUsesItsOwnDefinition() throws {
        let expected = #"""
            {
              "title": "TreeNode", "type": "object",
              "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/TreeNode"}}
              },
              "required": ["value", "children"], "x-order": ["value", "children"], "additionalProperties": false,
              "$defs": {
                "TreeNode": {
                  "title": "TreeNode", "type": "object",
                  "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/TreeNode"}}
                  },
                  "required": ["value", "children"], "x-order": ["value", "children"], "additionalProperties": false
                }
              }
            }
            """#
        #expect(try object(JSONEncoder().encode(TreeNode.generationSchema)) == object(Data(expected.utf8)))
    }

    @Test func primitivesAndExplicitNil() throws {
        #expect(try object(JSONEncoder().encode([Int].generationSchema)) == ["type": "array", "items": ["type": "integer"]] as NSDictionary)
        let dynamic = DynamicGenerationSchema(
            name: "Reading", representNilExplicitlyInGeneratedContent: true,
            properties: [
                .init(name: "celsius", schema: .init(type: Double.self, guides: [.range(-50...60)]), isOptional: true),
                .init(name: "flag", schema: .init(type: Bool.self)),
            ])
        let expected = #"""
            {
              "title": "Reading", "type": "object",
              "properties": {
                "celsius": {"anyOf": [{"type": "number", "minimum": -50, "maximum": 60}, {"type": "null"}]},
                "flag": {"type": "boolean"}
              },
              "required": ["celsius", "flag"], "x-order": ["celsius", "flag"], "additionalProperties": false
            }
            """#
        let schema = try GenerationSchema(root: dynamic, dependencies: [])
        #expect(try object(JSONEncoder().encode(schema)) == object(Data(expected.utf8)))
    }

    @Test func decodingReadsTheFormatBack() throws {
        let decoded = try JSONDecoder().decode(GenerationSchema.self, from: Data(Self.recipeSchema.utf8))
        #expect(decoded.name == "Recipe")
        #expect(try object(JSONEncoder().encode(decoded)) == object(Data(Self.recipeSchema.utf8)))
        #expect(try decoded.jsonGrammar() == Recipe.generationSchema.jsonGrammar())
    }

    @Test func decodingRejectsUndefinedReferences() {
        let text = ##"{"type":"object","properties":{"a":{"$ref":"#/$defs/Nope"}},"required":["a"]}"##
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(GenerationSchema.self, from: Data(text.utf8)) }
    }

    @Test func promptTextIsCompactJSONSchema() throws {
        let text = Recipe.generationSchema.schemaPromptText()
        #expect(!text.contains("\n") && !text.contains(", "))
        #expect(try object(Data(text.utf8)) == object(Data(Self.recipeSchema.utf8)))
        #expect(Recipe.generationSchema.debugDescription == text)
        #expect(text.hasPrefix(#"{"title":"Recipe","description":"A recipe","type":"object","properties":{"title":"#))
    }
}
