@Generable(name: "Person", description: "Someone")
struct Renamed {
    var age: Int
}
