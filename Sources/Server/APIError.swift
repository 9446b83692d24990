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
        self.message = message
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

    /// The whole HTTP reply.
    var reply: HTTPReply {
        var headers: [(String, String)] = []
        if status == 503 { headers.append(("Retry-After", "1")) }
        if status == 401 { headers.append(("WWW-Authenticate", "Bearer")) }
        return .full(status: status, headers: headers, body: Array(json.jsonText.utf8))
    }
}
