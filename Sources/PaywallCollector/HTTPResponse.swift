import PaywallCore

/// An HTTP response the collector sends: status, extra headers and a body.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Extra headers (name, value), in order.
    public var headers: [HTTPHeader]
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    static func json(_ status: Int, _ text: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [HTTPHeader("Content-Type", "application/json")] + headers,
            body: Array(text.utf8))
    }

    /// An error response: `{"error":"…"}` saying what went wrong and what to do.
    static func error(_ status: Int, _ message: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        json(status, "{\"error\":\(JSONString.quoted(message))}", headers: headers)
    }
}

/// One header line.
public struct HTTPHeader: Sendable, Hashable {
    /// The header's name.
    public var name: String
    /// Its value.
    public var value: String

    /// Creates a header.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
