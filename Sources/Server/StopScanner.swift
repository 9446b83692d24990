// A request's `stop` sequences over streamed text: text that may be the start of one is held
// back until the next piece shows whether it is.

/// Cuts streamed text at the first stop sequence.
struct StopScanner {
    let stops: [String]
    private var held = ""
    /// Whether a stop sequence was found (nothing after it is returned).
    private(set) var stopped = false

    init(_ stops: [String]) { self.stops = stops }

    /// The part of `held + piece` that is safe to send now.
    mutating func feed(_ piece: String) -> String {
        guard !stopped else { return "" }
        guard !stops.isEmpty else { return piece }
        held += piece
        if let cut = stops.compactMap({ held.range(of: $0)?.lowerBound }).min() {
            stopped = true
            defer { held = "" }
            return String(held[..<cut])
        }
        // Keep the longest suffix that is a prefix of some stop sequence.
        var keep = 0
        for stop in stops {
            for n in stride(from: min(stop.count - 1, held.count), to: keep, by: -1) where held.hasSuffix(stop.prefix(n)) {
                keep = n
                break
            }
        }
        let out = String(held.dropLast(keep))
        held = String(held.suffix(keep))
        return out
    }

    /// What is still held when the answer ends without a stop.
    mutating func flush() -> String {
        defer { held = "" }
        return stopped ? "" : held
    }
}
