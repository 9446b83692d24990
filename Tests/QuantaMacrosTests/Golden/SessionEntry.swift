@SessionPropertyEntry
var tripCity: String? = nil
