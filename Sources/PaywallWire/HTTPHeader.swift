/// One HTTP header line: the one type for requests sent, responses received and responses the
/// collector sends.
public struct HTTPHeader: Sendable, Hashable {
    /// The header name as sent.
    public var name: String
    /// The header value.
    public var value: String

    /// Creates a header.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
