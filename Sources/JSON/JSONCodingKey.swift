// The coding keys the JSON coder makes itself: array positions in coding paths, and the key
// `superEncoder()` / `superDecoder()` use, spelled as Foundation's JSON coder spells them.

/// A key made at run time: an object member's name, or an array position.
struct JSONCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }

    /// Position `index` of an array (`Index 3`, as Foundation names it in coding paths).
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    /// The member a keyed container's `superEncoder()` and `superDecoder()` use.
    static let `super` = JSONCodingKey(stringValue: "super")
}

/// A coding error as one line: where in the document (`[2].segments[0].content`) and what was
/// wrong, for messages such as "cannot load FILE: …". Other errors as they describe themselves.
public func codingErrorSummary(_ error: any Error) -> String {
    oneLine(summaryLines(of: error))
}

private func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).joined(separator: " ")
}

private func summaryLines(of error: any Error) -> String {
    func place(_ path: [any CodingKey]) -> String {
        let text = path.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        return text.hasPrefix(".") ? String(text.dropFirst()) : text
    }
    func located(_ path: [any CodingKey], _ what: String) -> String {
        path.isEmpty ? what : "\(place(path)): \(what)"
    }
    if let error = error as? DecodingError {
        switch error {
        case let .keyNotFound(key, context): return "missing \(place(context.codingPath + [key]))"
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
            return located(context.codingPath, context.debugDescription)
        @unknown default: return "\(error)"
        }
    }
    if let error = error as? EncodingError {
        switch error {
        case let .invalidValue(_, context): return located(context.codingPath, context.debugDescription)
        @unknown default: return "\(error)"
        }
    }
    return "\(error)"
}
