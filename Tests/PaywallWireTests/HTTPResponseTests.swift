import Foundation
import PaywallWire
import Testing

/// One `HTTPResponse` serves both ends: headers in order for the collector, keyed by name for a transport.
struct HTTPResponseTests {
    @Test func headersInOrderStayInOrderAndAreFoundWhateverTheirCase() {
        let response = HTTPResponse(
            status: 503, headers: [HTTPHeader("Retry-After", "1"), HTTPHeader("Connection", "close")],
            body: Data("{}".utf8))
        #expect(response.headers.map(\.name) == ["Retry-After", "Connection"])
        #expect(response.header("retry-after") == "1" && response.headers["CONNECTION"] == "close")
        #expect(response.header("Allow") == nil)
    }

    @Test func headersKeyedByNameAreLowercasedAsATransportReadThem() {
        let response = HTTPResponse(status: 429, headers: ["Retry-After": "120", "Content-Type": "text/plain"])
        #expect(response.headers == [HTTPHeader("content-type", "text/plain"), HTTPHeader("retry-after", "120")])
        #expect(response.headers["retry-after"] == "120" && response.header("Retry-After") == "120")
        #expect(response.body.isEmpty)
        #expect(HTTPResponse(status: 200).headers.isEmpty)
    }
}
