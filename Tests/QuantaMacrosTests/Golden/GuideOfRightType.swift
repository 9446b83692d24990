@Guide(description: "Tags", .count(2), .element(.anyOf(["red", "green"])))
var tags: [String]
