@SessionPropertyEntry
var limit: Int
