import Foundation
import PaywallCore
import PaywallWire
import Testing

/// The route and its header names are the strings both ends used before they were spelled once.
struct CollectorWireTests {
    @Test func theRouteAndHeadersAreSpelledAsBefore() {
        #expect(CollectorWire.path == "/v1/events" && CollectorWire.method == "POST")
        #expect(CollectorWire.mediaType == "application/x-ndjson" && CollectorWire.gzip == "gzip")
        #expect(CollectorWire.answerMediaType == "application/json" && CollectorWire.bearerPrefix == "Bearer ")
        #expect(CollectorWire.Header.authorization == "Authorization")
        #expect(CollectorWire.Header.forwarding == "X-Paywall-Forwarding")
        #expect(CollectorWire.Header.forwarding == ForwardingParty.headerName)
        #expect(CollectorWire.Header.contentType == "Content-Type")
        #expect(CollectorWire.Header.contentEncoding == "Content-Encoding")
        #expect(CollectorWire.Header.contentLength == "Content-Length")
        #expect(CollectorWire.Header.version == "X-Version" && CollectorWire.Header.retryCount == "X-Retry-Count")
        #expect(CollectorWire.Header.retryAfter == "Retry-After")
        #expect(CollectorWire.Header.wwwAuthenticate == "WWW-Authenticate")
    }

    @Test(arguments: [
        ("https://events.example.com", "https://events.example.com/v1/events"),
        ("https://events.example.com/", "https://events.example.com/v1/events"),
        ("https://events.example.com//", "https://events.example.com/v1/events"),
        ("http://127.0.0.1:8080/base", "http://127.0.0.1:8080/base/v1/events"),
        ("http://127.0.0.1:8080/base/", "http://127.0.0.1:8080/base/v1/events"),
    ])
    func theRouteIsJoinedToTheEndpoint(endpoint: String, expected: String) throws {
        #expect(CollectorWire.url(on: try #require(URL(string: endpoint))).absoluteString == expected)
    }
}
