@Generable(description: "A day plan")
struct Itinerary {
    /// The city (doc comments are not descriptions).
    @Guide(description: "City", /[A-Z][a-z]+/) var city: String
    var pace: Pace
    @Guide(.range(0...500)) var budget: Double
    @Guide(description: "Things to do", .count(1...4)) var activities: [Activity]
    var note: String?
    let version = 2
    var computed: Int { 3 }
    static var shared: Int { 1 }
    func describe() -> String { "\(city) \(pace)" }
}
