import Templates

/// A conversation written as JSON, the one format `quanta template` renders and `/load`
/// continues: `{"messages": [...], ...}` or a bare array of messages, each an object such as
/// `{"role": "user", "content": "Hi"}`. Read with the package's JSON reader (object keys in
/// document order, integers kept apart from floats, as the chat templates see them).
struct ConversationJSON {
    /// The messages, as written.
    var messages: [TemplateValue]
    /// The object's other top-level keys in document order (`tools`, `enable_thinking`, template
    /// variables such as `date_string`); none for a bare array.
    var variables: [(String, TemplateValue)]

    /// The conversation in `value`; nil when it is neither an object with a `messages` array nor
    /// an array. `requiringRoles`: an array counts only when every item is an object with a
    /// `role` (so that other JSON arrays, such as a saved transcript, are not taken for one).
    init?(_ value: TemplateValue, requiringRoles: Bool = false) {
        switch value {
        case let .object(object):
            guard case let .array(items)? = object["messages"] else { return nil }
            messages = items
            variables = object.pairs.filter { $0.0 != "messages" }
        case let .array(items):
            if requiringRoles, !items.allSatisfy({ $0["role"] != nil }) { return nil }
            messages = items
            variables = []
        default:
            return nil
        }
    }
}
