import Foundation
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite struct GenerableTests {
    @Test func scalarsRoundTrip() throws {
        #expect(try Bool(true.generatedContent) == true)
        #expect(try String("héllo \"x\"".generatedContent) == "héllo \"x\"")
        #expect(try Int((-42).generatedContent) == -42)
        #expect(try Float(Float(1.5).generatedContent) == 1.5)
        #expect(try Double(0.1.generatedContent) == 0.1)
        #expect(try Decimal(Decimal(string: "12.25")!.generatedContent) == Decimal(string: "12.25")!)
        #expect(try Decimal(GeneratedContent(json: "0.1")) == Decimal(string: "0.1")!)
        #expect(try [Int]([1, 2, 3].generatedContent) == [1, 2, 3])
        #expect(try [[String]]([["a"], []].generatedContent) == [["a"], []])
        let content = try GeneratedContent(json: #"{"a":[1,2]}"#)
        #expect(try GeneratedContent(content.generatedContent) == content)
    }

    @Test func scalarsReadFromJSON() throws {
        #expect(try GeneratedContent(json: "7").value(Int.self) == 7)
        #expect(try GeneratedContent(json: "7.0").value(Int.self) == 7)
        #expect(try GeneratedContent(json: "false").value(Bool.self) == false)
        #expect(try GeneratedContent(json: #""s""#).value(String.self) == "s")
        #expect(try GeneratedContent(json: "[1.5,2]").value([Double].self) == [1.5, 2])
    }

    @Test func mismatchesThrow() {
        #expect(throws: DecodingError.self) { try GeneratedContent(json: "7.5").value(Int.self) }
        #expect(throws: DecodingError.self) { try GeneratedContent(json: "1e300").value(Int.self) }
        #expect(throws: DecodingError.self) { try GeneratedContent(json: #""7""#).value(Int.self) }
        #expect(throws: DecodingError.self) { try GeneratedContent(json: "1").value(Bool.self) }
        #expect(throws: DecodingError.self) { try GeneratedContent(json: "null").value(String.self) }
        #expect(throws: DecodingError.self) { try GeneratedContent(json: "{}").value([Int].self) }
        #expect(throws: DecodingError.self) { try GeneratedContent(json: "1").value(Never.self) }
    }

    @Test func optionalsAndProperties() throws {
        let content = try GeneratedContent(json: #"{"a":1,"b":null}"#)
        #expect(try content.value(Int.self, forProperty: "a") == 1)
        #expect(try content.value(Int?.self, forProperty: "a") == 1)
        #expect(try content.value(Int?.self, forProperty: "b") == nil)
        #expect(try content.value(Int?.self, forProperty: "missing") == nil)
        #expect(throws: DecodingError.self) { try content.value(Int.self, forProperty: "missing") }
        #expect(throws: DecodingError.self) { try GeneratedContent(json: "[1]").value(Int?.self, forProperty: "a") }
        let none: Int? = nil
        #expect(none.generatedContent.kind == .null)
        #expect(Optional(3).generatedContent.kind == .number(3))
    }

    @Test func constructionInitializers() throws {
        let id = GenerationID()
        let structure = GeneratedContent(properties: ["b": 1, "a": "x", "b": true], id: id)
        #expect(structure.id == id)
        #expect(structure.jsonString == #"{"b":true,"a":"x"}"#)
        let summed = try GeneratedContent(
            properties: [("n", 1 as any ConvertibleToGeneratedContent), ("n", 2), ("m", 5)], uniquingKeysWith: { old, new in
                try old.value(Int.self) + (try new.value(Int.self))
            })
        #expect(summed.jsonString == #"{"n":3,"m":5}"#)
        let elements = GeneratedContent(elements: [1, "two", false, [3]] as [any ConvertibleToGeneratedContent])
        #expect(elements.jsonString == #"[1,"two",false,[3]]"#)
        #expect(GeneratedContent("text").kind == .string("text"))
        #expect(GeneratedContent(5, id: id).id == id)
        #expect(GeneratedContent(kind: .structure(properties: ["x": GeneratedContent(kind: .null)], orderedKeys: ["x"])).jsonString == #"{"x":null}"#)
    }

    @Test func equalityComparesValueAndID() throws {
        #expect(try GeneratedContent(json: "[1,2]") == GeneratedContent(json: "[1.0, 2]"))
        #expect(try GeneratedContent(json: "[1,2") == GeneratedContent(json: "[1,2]"))
        #expect(GeneratedContent(1, id: GenerationID()) != GeneratedContent(1, id: GenerationID()))
        #expect(try GeneratedContent(json: #"{"a":1,"b":2}"#) != GeneratedContent(json: #"{"b":2,"a":1}"#))
    }

    @Test func recipeRoundTripsAndStreams() throws {
        let recipe = Recipe(
            title: "Pad Thai", cuisine: .thai, servings: 2,
            ingredients: [Ingredient(name: "noodles", grams: 200), Ingredient(name: "peanuts", grams: 30.5)])
        let json = recipe.generatedContent.jsonString
        #expect(json == #"{"title":"Pad Thai","cuisine":"thai","servings":2,"ingredients":[{"name":"noodles","grams":200},{"name":"peanuts","grams":30.5}]}"#)
        #expect(try Recipe(GeneratedContent(json: json)) == recipe)
        #expect(Prompt(recipe).text == json)

        let partial = try Recipe.PartiallyGenerated(GeneratedContent(json: String(json[..<json.range(of: "pean")!.upperBound])))
        #expect(partial.title == "Pad Thai")
        #expect(partial.cuisine == .thai)
        #expect(partial.servings == 2)
        #expect(partial.ingredients?.count == 2)
        #expect(partial.ingredients?.last?.name == "pean")
        #expect(partial.ingredients?.last?.grams == nil)
        #expect(partial.notes == nil)

        let cutEnum = try Recipe.PartiallyGenerated(GeneratedContent(json: #"{"title":"X","cuisine":"it"#))
        #expect(cutEnum.cuisine == nil)
        #expect(recipe.asPartiallyGenerated().title == "Pad Thai")
        #expect(5.asPartiallyGenerated() == 5)
    }

    @Test func arraysOfPartialElements() throws {
        let partial = try [Ingredient].PartiallyGenerated(GeneratedContent(json: #"[{"name":"salt","grams":1},{"na"#))
        #expect(partial.count == 2)
        #expect(partial[0].grams == 1)
        #expect(partial[1].name == nil)
    }
}
