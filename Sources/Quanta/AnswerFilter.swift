// What of the generated answer text may be streamed now: text is held back while it may still
// turn out to be a stop sequence (base models rendered with the plain template write the next
// `User:` turn themselves) or the opening of a tool call (which is not answer text at all).

/// Decides, token by token, which answer text to stream, when a stop sequence ends the answer,
/// and whether the answer is a tool call.
struct AnswerFilter {
    /// Text that ends the answer; it is not part of it.
    let stopSequences: [String]
    /// Openings of a tool call in the model's format (empty when no tools are offered).
    let callOpenings: [String]
    /// Everything generated so far that was not cut by a stop sequence.
    private(set) var text = ""
    /// How many bytes of `text` have been streamed.
    private var streamedBytes = 0
    /// Whether the answer starts with a call opening: nothing is streamed, the caller parses it.
    private(set) var isCall = false

    init(stopSequences: [String], callOpenings: [String]) {
        self.stopSequences = stopSequences.filter { !$0.isEmpty }
        self.callOpenings = callOpenings.filter { !$0.isEmpty }
    }

    /// Adds generated text; returns the text that may be streamed now and whether a stop
    /// sequence ended the answer.
    mutating func push(_ piece: String) -> (stream: String, stop: Bool) {
        text += piece
        if isCall { return ("", false) }
        if let cut = stopSequences.compactMap({ text.range(of: $0)?.lowerBound }).min() {
            text = String(text[..<cut])
            return (takeUnstreamed(upTo: text.utf8.count), true)
        }
        let head = text.drop { $0.isWhitespace }
        if !callOpenings.isEmpty && streamedBytes == 0 {
            if callOpenings.contains(where: { head.hasPrefix($0) }) {
                isCall = true
                return ("", false)
            }
            // Still possibly the start of a call: wait.
            if callOpenings.contains(where: { $0.hasPrefix(head) }) { return ("", false) }
        }
        return (takeUnstreamed(upTo: text.utf8.count - heldForStop()), false)
    }

    /// The rest of the answer, at the end of generation (nothing when it is a call).
    mutating func finish() -> String {
        isCall ? "" : takeUnstreamed(upTo: text.utf8.count)
    }

    /// Bytes at the end of `text` that are a proper prefix of a stop sequence.
    private func heldForStop() -> Int {
        var longest = 0
        let bytes = Array(text.utf8)
        for stop in stopSequences {
            let s = Array(stop.utf8)
            for n in stride(from: min(s.count - 1, bytes.count), to: longest, by: -1)
            where bytes[(bytes.count - n)...].elementsEqual(s[..<n]) {
                longest = n
                break
            }
        }
        return longest
    }

    private mutating func takeUnstreamed(upTo end: Int) -> String {
        guard end > streamedBytes else { return "" }
        let bytes = Array(text.utf8)[streamedBytes..<end]
        streamedBytes = end
        return String(decoding: bytes, as: UTF8.self)
    }
}
