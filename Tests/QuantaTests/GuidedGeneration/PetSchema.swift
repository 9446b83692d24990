import Quanta

/// The nested schema of the guided-generation tests: an object with an enum, number ranges and
/// an array with a count range, as FM27 code would declare it (hand-written macro output).
enum Species: String, Generable, CaseIterable {
    case cat, dog, parrot, rabbit

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Species.self, anyOf: allCases.map(\.rawValue))
    }
    init(_ content: GeneratedContent) throws {
        guard let value = Species(rawValue: try content.value(String.self)) else {
            throw GeneratedContent.ParsingError(rawContent: content.jsonString, debugDescription: "not a species")
        }
        self = value
    }
    var generatedContent: GeneratedContent { GeneratedContent(rawValue) }
}

struct Pet: Generable {
    static let ages = 0...30
    static let weights = 0.1...80.0
    static let toyCounts = 1...3

    var name: String
    var species: Species
    var age: Int
    var weightKilograms: Double
    var toys: [String]

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Pet.self, description: "A pet", properties: [
            .init(name: "name", type: String.self),
            .init(name: "species", type: Species.self),
            .init(name: "age", description: "Age in years", type: Int.self, guides: [.range(ages)]),
            .init(name: "weightKilograms", type: Double.self, guides: [.range(weights)]),
            .init(name: "toys", type: [String].self, guides: [.count(toyCounts)]),
        ])
    }
    init(_ content: GeneratedContent) throws {
        name = try content.value(forProperty: "name")
        species = try content.value(forProperty: "species")
        age = try content.value(forProperty: "age")
        weightKilograms = try content.value(forProperty: "weightKilograms")
        toys = try content.value(forProperty: "toys")
    }
    var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["name": name, "species": species, "age": age, "weightKilograms": weightKilograms, "toys": toys])
    }

    struct PartiallyGenerated: ConvertibleFromGeneratedContent {
        var name: String?
        var toys: [String]?
        init(_ content: GeneratedContent) throws {
            name = try content.value(String?.self, forProperty: "name")
            toys = try? content.value([String]?.self, forProperty: "toys")
        }
    }
}
