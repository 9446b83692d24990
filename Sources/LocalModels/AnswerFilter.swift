// What of the generated answer text may be streamed now: text is held back while it may still
// turn out to be a stop sequence (base models rendered with the plain template write the next
// `User:` turn themselves), the opening of a tool call (which is not answer text at all), or tool
// markup (a call or a tool response the model writes as text, which is never answer text).
import LanguageModelAPI

/// Markup of a tool-call format that is never answer text.
struct ToolMarkup: Equatable {
    /// How it starts.
    let opening: String
    /// How it ends: nil when it runs to the end of the answer, empty when it is the opening alone.
    let closing: String?
}

/// Decides, token by token, which answer text to stream, when a stop sequence ends the answer,
/// and whether the answer is a tool call.
struct AnswerFilter {
    /// Text that ends the answer; it is not part of it.
    let stopSequences: [String]
    /// Openings of a tool call in the model's format (empty when no tools are offered).
    let callOpenings: [String]
    /// Tool markup left out of the answer wherever it appears (empty when the request involves
    /// no tools).
    let markup: [ToolMarkup]
    /// Everything generated so far that was not cut by a stop sequence.
    private(set) var text = ""
    /// How many bytes of the answer (`text` without its markup) have been streamed.
    private var streamedBytes = 0
    /// Whether the answer is held as a call: it starts with a call opening, or a call opening
    /// that is tool markup follows some text. Nothing more is streamed; the caller parses `text`.
    private(set) var isCall = false

    init(stopSequences: [String], callOpenings: [String], markup: [ToolMarkup] = []) {
        self.stopSequences = stopSequences.filter { !$0.isEmpty }
        self.callOpenings = callOpenings.filter { !$0.isEmpty }
        self.markup = markup.filter { !$0.opening.isEmpty }
    }

    /// Adds generated text; returns the text that may be streamed now and whether a stop
    /// sequence ended the answer.
    mutating func push(_ piece: String) -> (stream: String, stop: Bool) {
        text += piece
        if isCall { return ("", false) }
        if let cut = stopSequences.compactMap({ text.range(of: $0)?.lowerBound }).min() {
            text = String(text[..<cut])
            let visible = answer.text
            return (takeUnstreamed(of: visible, upTo: visible.utf8.count), true)
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
        let (visible, open) = answer
        if let open {
            // Inside markup: the text before it may go; a call is held for the caller to parse.
            if callOpenings.contains(open.opening) { isCall = true }
            return (takeUnstreamed(of: visible, upTo: visible.utf8.count), false)
        }
        let held = Self.heldSuffix(of: visible, prefixesOf: stopSequences + markup.map(\.opening))
        return (takeUnstreamed(of: visible, upTo: visible.utf8.count - held), false)
    }

    /// The rest of the answer, at the end of generation (nothing when it is a call; markup
    /// never closed is left out).
    mutating func finish() -> String {
        isCall ? "" : release()
    }

    /// The answer not streamed yet, without its markup: what a held call that turned out not to
    /// be one leaves to show.
    mutating func release() -> String {
        let visible = answer.text
        return takeUnstreamed(of: visible, upTo: visible.utf8.count)
    }

    /// `text` without its markup, and the markup it ends inside of (unclosed), if any.
    private var answer: (text: String, open: ToolMarkup?) {
        var visible = ""
        var rest = Substring(text)
        while !rest.isEmpty {
            var first: (ToolMarkup, Range<Substring.Index>)?
            for item in markup {
                guard let range = rest.range(of: item.opening) else { continue }
                if let (_, best) = first, best.lowerBound <= range.lowerBound { continue }
                first = (item, range)
            }
            guard let (item, range) = first else { break }
            visible += rest[..<range.lowerBound]
            rest = rest[range.upperBound...]
            guard let closing = item.closing else { return (visible, item) }
            if closing.isEmpty { continue }
            guard let end = rest.range(of: closing) else { return (visible, item) }
            rest = rest[end.upperBound...]
        }
        return (visible + rest, nil)
    }

    /// Bytes at the end of `text` that are a proper prefix of one of `needles`.
    private static func heldSuffix(of text: String, prefixesOf needles: [String]) -> Int {
        var longest = 0
        let bytes = Array(text.utf8)
        for needle in needles {
            let s = Array(needle.utf8)
            for n in stride(from: min(s.count - 1, bytes.count), to: longest, by: -1)
            where bytes[(bytes.count - n)...].elementsEqual(s[..<n]) {
                longest = n
                break
            }
        }
        return longest
    }

    /// The bytes of `visible` (the answer without markup) from the last streamed one to `end`.
    private mutating func takeUnstreamed(of visible: String, upTo end: Int) -> String {
        guard end > streamedBytes else { return "" }
        let bytes = Array(visible.utf8)[streamedBytes..<end]
        streamedBytes = end
        return String(decoding: bytes, as: UTF8.self)
    }
}
