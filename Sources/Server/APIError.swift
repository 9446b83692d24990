// OpenAI's error object, and the HTTP status each kind of failure answers with.
import JSON

/// A failed request as OpenAI reports one: `{"error": {"message", "type", "param", "code"}}`.
public struct APIError: Error, Sendable, Equatable {
    /// HTTP status (4xx for the client's mistakes, 5xx for the server's).
    public var status: Int
    public var message: String
    /// `invalid_request_error`, `authentication_error`, `server_error`, ...
    public var type: String
    /// The request field at fault, if one is.
    public var param: String?
    /// A short machine-readable reason.
    public var code: String?

    public init(status: Int, _ message: String, type: String = "invalid_request_error", param: String? = nil, code: String? = nil) {
        self.status = status
        // One line whatever the request held: names and values quoted from a body may contain
        // line breaks (a JSON key "a\nb"), which are escaped here as Swift writes them.
        var line = ""
        for scalar in message.unicodeScalars {
            if Character(scalar).isNewline { line += scalar.escaped(asASCII: true) } else { line.unicodeScalars.append(scalar) }
        }
        self.message = line
        self.type = type
        self.param = param
        self.code = code
    }

    /// 400: a field has the wrong type or value.
    static func invalid(_ param: String, _ message: String) -> APIError {
        APIError(status: 400, message, param: param, code: "invalid_value")
    }

    /// 400: a parameter this server does not implement.
    static func unsupported(_ param: String, _ message: String) -> APIError {
        APIError(status: 400, message, param: param, code: "unsupported_parameter")
    }

    /// The error object as JSON.
    public var json: JSONValue {
        .object([("error", .object([
            ("message", .string(message)), ("type", .string(type)),
            ("param", param.map(JSONValue.string) ?? .null), ("code", code.map(JSONValue.string) ?? .null),
        ]))])
    }
}
