import Foundation

/// An HTTP response: the one type for both ends of the package's HTTP. A transport returns one for
/// every answer it receives (`HTTPTransport.send` in PaywallDelivery); the collector sends one for
/// every request it answers.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The headers, in order (the collector sends them in this order; a transport's are sorted by name).
    public var headers: [HTTPHeader]
    /// The body.
    public var body: Data

    /// Creates a response with headers in order.
    public init(status: Int, headers: [HTTPHeader] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Creates a response from headers keyed by name, as a URL loader reports them: names are
    /// lowercased, one value per name (the first when two names differ only in case), sorted by name.
    public init(status: Int, headers: [String: String], body: Data = Data()) {
        let byName = Dictionary(
            headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.init(
            status: status, headers: byName.sorted { $0.key < $1.key }.map { HTTPHeader($0.key, $0.value) }, body: body)
    }

    /// The first value of header `name` (case-insensitive), `nil` when it was not sent.
    public func header(_ name: String) -> String? { headers[name] }
}

extension Array where Element == HTTPHeader {
    /// The first value of header `name` (case-insensitive), so `response.headers["retry-after"]`
    /// reads as it did when a transport's headers were a dictionary of lowercased names.
    public subscript(_ name: String) -> String? {
        first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
