// `@Generable` against the hand-written conformances it replaced, and the behaviour of what it
// writes (content round trips, optionals, enums with values, partial values, renaming).
// Time cap: well under 1 s (no model).
import Foundation
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite struct MacroSchemaTests {
    /// The schema JSON the hand-written conformance of each type produced, recorded before the
    /// types were declared with `@Generable` (MacroSchemaFixtures/<name>.json).
    private func recorded(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("MacroSchemaFixtures").appendingPathComponent("\(name).json")
        return try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .newlines)
    }

    @Test func schemasEqualTheHandWrittenOnes() throws {
        let types: [(String, any Generable.Type)] = [
            ("Cuisine", Cuisine.self), ("Ingredient", Ingredient.self), ("Recipe", Recipe.self), ("TreeNode", TreeNode.self),
            ("Species", Species.self), ("Pet", Pet.self), ("WeatherToolArguments", WeatherTool.Arguments.self),
        ]
        for (name, type) in types {
            #expect(type.generationSchema.schemaPromptText() == (try recorded(name)), "\(name)")
        }
    }

    @Test func structContentRoundTripsInDeclarationOrderWithoutAbsentOptionals() throws {
        let recipe = Recipe(title: "Soup", cuisine: .thai, servings: 2, ingredients: [Ingredient(name: "salt", grams: 1)])
        #expect(recipe.generatedContent.jsonString
            == #"{"title":"Soup","cuisine":"thai","servings":2,"ingredients":[{"name":"salt","grams":1}]}"#)
        #expect(try Recipe(recipe.generatedContent) == recipe)
        var tipped = recipe
        tipped.notes = "stir"
        #expect(tipped.generatedContent.jsonString.hasSuffix(#","notes":"stir"}"#))
        #expect(try Recipe(tipped.generatedContent) == tipped)
        #expect(throws: DecodingError.self) { try Recipe(GeneratedContent(json: #"{"title":"Soup"}"#)) }
    }

    @Generable(representNilExplicitlyInGeneratedContent: true)
    struct Explicit {
        var name: String
        var nickname: String?
    }

    @Test func explicitNilIsWrittenAsNull() throws {
        #expect(Explicit(name: "A", nickname: nil).generatedContent.jsonString == #"{"name":"A","nickname":null}"#)
        #expect(Explicit.generationSchema.schemaPromptText().contains(
            #""nickname":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["name","nickname"]"#))
    }

    @Generable(description: "How to travel")
    enum Transport: Equatable {
        case walk
        case flight(number: String, seats: Int)
        case bus(String, Int?)
    }

    @Test func enumsWithValuesRoundTrip() throws {
        let values: [Transport] = [.walk, .flight(number: "AF1", seats: 2), .bus("42", nil), .bus("7", 3)]
        for value in values {
            #expect(try Transport(value.generatedContent) == value)
        }
        #expect(Transport.flight(number: "AF1", seats: 2).generatedContent.jsonString == #"{"flight":{"number":"AF1","seats":2}}"#)
        #expect(Transport.bus("7", 3).generatedContent.jsonString == #"{"bus":{"_0":"7","_1":3}}"#)
        #expect(Transport.walk.generatedContent.jsonString == #""walk""#)
        #expect(throws: DecodingError.self) { try Transport(GeneratedContent(json: #""run""#)) }
        #expect(throws: DecodingError.self) { try Transport(GeneratedContent(json: #"{"flight":{"number":"AF1"}}"#)) }
        let schema = Transport.generationSchema.schemaPromptText()
        #expect(schema.contains(#""anyOf":[{"type":"string","enum":["walk"]}"#), "\(schema)")
        #expect(schema.contains(#""required":["flight"]"#) && schema.contains(#""required":["_0"]"#), "\(schema)")
    }

    @Test func partialValuesReadWhatIsThereAndSkipCutEnums() throws {
        let partial = try Recipe.PartiallyGenerated(GeneratedContent(json: #"{"title":"So"#))
        #expect(partial.title == "So" && partial.cuisine == nil && partial.ingredients == nil)
        let cutEnum = try Recipe.PartiallyGenerated(GeneratedContent(json: #"{"title":"X","cuisine":"it"#))
        #expect(cutEnum.title == "X" && cutEnum.cuisine == nil)
        let nested = try Recipe.PartiallyGenerated(GeneratedContent(json: #"{"title":"X","ingredients":[{"name":"sa"#))
        #expect(nested.ingredients?.first?.name == "sa" && nested.ingredients?.first?.grams == nil)
    }

    @Generable(name: "Person", description: "Someone")
    struct Renamed {
        var age: Int
    }

    @Test func renamedSchemaUsesTheGivenName() {
        #expect(Renamed.generationSchema.name == "Person")
        #expect(Renamed.generationSchema.schemaPromptText().hasPrefix(#"{"title":"Person","description":"Someone""#))
    }

    @Test func letConstantsWithValuesAndComputedPropertiesAreNotGenerated() throws {
        #expect(Fixed.generationSchema.schemaPromptText().contains(#""x-order":["name"]"#))
        #expect(try Fixed(GeneratedContent(json: #"{"name":"n"}"#)).version == 2)
    }

    @Generable struct Fixed {
        let version = 2
        var name: String
        var shout: String { name.uppercased() }
        static let shared = 1
    }
}

extension SessionPropertyValues {
    @SessionPropertyEntry var macroTestCity: String? = nil
    @SessionPropertyEntry var macroTestLimit = 7
}

@Suite struct SessionPropertyEntryTests {
    @Test func entriesStartAtTheirInitialValueAndStoreWrites() {
        let values = SessionPropertyValues()
        #expect(values.macroTestCity == nil && values.macroTestLimit == 7)
        values.macroTestCity = "Lyon"
        values.macroTestLimit = 3
        #expect(values.macroTestCity == "Lyon" && values.macroTestLimit == 3)
        #expect(SessionPropertyValues().macroTestLimit == 7)
    }
}
