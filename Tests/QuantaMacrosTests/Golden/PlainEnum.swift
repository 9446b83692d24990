@Generable(description: "How full the day is")
enum Pace: String, CaseIterable {
    case relaxed, balanced
    case `packed` = "full"
}
