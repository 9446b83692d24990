/// The candidate `word` most likely misspells, for "did you mean …": the one nearest in edit
/// distance (insertions, deletions, substitutions and swaps of neighbours, leading dashes and
/// slashes ignored), if it is near enough for its length and no other candidate is as near; else
/// one that `word` extends or shortens by a whole part (`--temperature` → `--temp`).
public func closestMatch(to word: String, among candidates: [String]) -> String? {
    let bare = Array(stripped(word))
    guard !bare.isEmpty else { return nil }
    let allowed = bare.count <= 3 ? 1 : bare.count <= 6 ? 2 : 3
    var best: [String] = [], bestDistance = Int.max
    for candidate in Set(candidates) {
        let d = editDistance(bare, Array(stripped(candidate)))
        if d < bestDistance { (best, bestDistance) = ([candidate], d) } else if d == bestDistance { best.append(candidate) }
    }
    if bestDistance <= allowed, best.count == 1 { return best[0] }
    // A prefix of at least four characters either way, when only one candidate has it.
    let prefixed = Set(candidates).filter { candidate in
        let other = stripped(candidate)
        return min(other.count, bare.count) >= 4 && (other.hasPrefix(String(bare)) || String(bare).hasPrefix(other))
    }
    return prefixed.count == 1 ? prefixed.first : nil
}

private func stripped(_ word: String) -> Substring {
    word.drop { $0 == "-" || $0 == "/" }
}

/// Optimal string alignment distance: Levenshtein plus the swap of two neighbours as one edit.
func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous2 = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], previous2[j - 2] + 1)
            }
        }
        (previous2, previous, current) = (previous, current, previous2)
    }
    return previous[b.count]
}
