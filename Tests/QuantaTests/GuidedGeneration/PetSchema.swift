import Quanta

/// The nested schema of the guided-generation tests: an object with an enum, number ranges and
/// an array with a count range, as FM27 code declares it.
@Generable
enum Species: String, CaseIterable {
    case cat, dog, parrot, rabbit
}

@Generable(description: "A pet")
struct Pet {
    static let ages = 0...30
    static let weights = 0.1...80.0
    static let toyCounts = 1...3

    var name: String
    var species: Species
    @Guide(description: "Age in years", .range(Pet.ages)) var age: Int
    @Guide(.range(Pet.weights)) var weightKilograms: Double
    @Guide(.count(Pet.toyCounts)) var toys: [String]
}
