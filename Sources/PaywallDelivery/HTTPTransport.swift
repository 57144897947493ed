import Foundation
import PaywallWire

/// An HTTP request a delivery adapter sends. Its description redacts `Authorization`.
public struct HTTPRequest: Sendable, CustomStringConvertible, CustomReflectable {
    /// The method, e.g. `POST`.
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// Headers in the order they are sent.
    public var headers: [HTTPHeader]
    /// The body.
    public var body: Data

    /// Creates a request.
    public init(method: String, url: URL, headers: [HTTPHeader], body: Data) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// `METHOD url (n bytes)` — never the headers, so never the API key.
    public var description: String { "\(method) \(url.absoluteString) (\(body.count) bytes)" }

    /// A mirror whose `Authorization` value is redacted, so `dump` prints no key.
    public var customMirror: Mirror {
        let shown = headers.map { header in
            header.name.caseInsensitiveCompare("Authorization") == .orderedSame
                ? HTTPHeader(header.name, "(redacted)") : header
        }
        return Mirror(self, children: ["method": method, "url": url, "headers": shown, "body": body])
    }
}

/// Why a request got no usable HTTP response. Every case is retried with backoff.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No response within the transport's timeout.
    case timedOut
    /// The host could not be reached (refused, unreachable, DNS).
    case cannotConnect(detail: String)
    /// The connection closed before the response was complete.
    case connectionLost
    /// Bytes arrived but were not a valid HTTP response.
    case unreadableResponse(detail: String)
    /// The response was a redirect the transport did not follow (it never follows one).
    case redirected(status: Int)
    /// Any other failure of the transport.
    case other(detail: String)

    /// What happened and what the forwarder does about it.
    public var description: String {
        switch self {
        case .timedOut: "RevenueCat did not answer before the timeout; the impressions stay pending and are retried"
        case .cannotConnect(let detail):
            "cannot connect to RevenueCat (\(detail)); check the endpoint and network, the impressions stay pending"
        case .connectionLost:
            "the connection to RevenueCat closed mid-response; the impressions stay pending and are retried"
        case .unreadableResponse(let detail):
            "RevenueCat's response was not valid HTTP (\(detail)); the impressions stay pending and are retried"
        case .redirected(let status):
            "RevenueCat's endpoint answered HTTP \(status), a redirect to another address, which is never followed "
                + "(the API key goes only to the configured endpoint); check --endpoint, the impressions stay pending and are retried"
        case .other(let detail):
            "sending to RevenueCat failed (\(detail)); the impressions stay pending and are retried"
        }
    }
}

/// Sends one HTTP request and returns the response (any status); throws ``TransportError``
/// when there is no usable response. `URLSessionTransport` is the production implementation.
public protocol HTTPTransport: Sendable {
    /// Sends `request`.
    /// - Throws: ``TransportError``.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
