@Guide(description: "A name", .range(1...3))
var name: String
