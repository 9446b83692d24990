// Schema equality, as request and tool-definition equality use it, against Foundation's
// JSONEncoder with sorted keys as the reference: two schemas are equal exactly when their
// encoded JSON Schema documents are, whatever order the keys were written in. Time cap: 1 s.
import Foundation
import Testing
@testable import LanguageModelAPI
import Quanta

@Suite struct SchemaEqualityTests {
    @Test func equalExactlyWhenTheirJSONSchemasAre() throws {
        // Recipe's schema read back from JSON text written by hand in another key order.
        let readBack = try JSONDecoder().decode(GenerationSchema.self, from: Data(GenerationSchemaJSONTests.recipeSchema.utf8))
        let schemas = [Recipe.generationSchema, Recipe.generationSchema, readBack, Ingredient.generationSchema,
                       Cuisine.generationSchema, TreeNode.generationSchema, WeatherTool.Arguments.generationSchema]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var equal = 0, unequal = 0
        for (i, a) in schemas.enumerated() {
            for (j, b) in schemas.enumerated() {
                let reference = try encoder.encode(a) == encoder.encode(b)
                let definitions = [a, b].map { Transcript.ToolDefinition(name: "t", description: "d", parameters: $0) }
                #expect((definitions[0] == definitions[1]) == reference, "schemas \(i) and \(j)")
                if reference { equal += 1 } else { unequal += 1 }
            }
        }
        // Both answers were asked for, and equal pairs beyond each schema with itself.
        #expect(equal > schemas.count && unequal > 0, "\(equal) equal, \(unequal) unequal")
    }
}
