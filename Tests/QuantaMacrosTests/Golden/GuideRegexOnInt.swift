@Guide(/[0-9]+/)
var count: Int?
