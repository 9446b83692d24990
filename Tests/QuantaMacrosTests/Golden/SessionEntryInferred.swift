@SessionPropertyEntry
var limit = [1, 2].count
