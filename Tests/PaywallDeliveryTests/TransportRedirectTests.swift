import Foundation
import PaywallTestSupport
import PaywallWire
import Testing

@testable import PaywallDelivery

/// The transport itself never follows a redirect (the forwarder and the coming uploader both rely
/// on it): a 3xx comes back as the response, and the Location's server receives nothing.
struct TransportRedirectTests {
    @Test(arguments: [
        (301, "POST"), (302, "POST"), (303, "POST"), (307, "POST"), (308, "POST"), (302, "GET"), (308, "PUT"),
    ])
    func aRedirectIsReturnedAsItIsAndNeverFollowed(status: Int, method: String) async throws {
        // Given a server answering `status` with a Location on a second server
        let target = try RevenueCatStandIn()
        defer { target.stop() }
        let endpoint = try RevenueCatStandIn()
        defer { endpoint.stop() }
        endpoint.respondByDefault { _, _ in
            .status(status, body: "see elsewhere", headers: ["Location": "http://127.0.0.1:\(target.port)/landing"])
        }
        let transport = URLSessionTransport(timeout: .seconds(120))
        let request = HTTPRequest(
            method: method, url: endpoint.baseURL.appendingPathComponent("v1/events"),
            headers: [HTTPHeader("Authorization", "Bearer appl_TransportRedirect0123")],
            body: method == "GET" ? Data() : Data("{}".utf8))

        // When the request is sent
        let response = try await transport.send(request)

        // Then the caller sees the redirect itself, and the second server was never contacted
        #expect(response.status == status)
        // (its body is not kept: FoundationNetworking drops the body of a redirect it did not follow)
        #expect(endpoint.requestCount == 1)
        #expect(target.received.connections == 0 && target.received.bytes == 0)
    }
}

struct TransportOriginTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/v1/events", "http://127.0.0.1:8080/v1/events", true),
        ("HTTPS://API.example.com/v1/events", "https://api.example.com:443/v1/events", true),
        ("http://127.0.0.1:8080/v1/events", "http://127.0.0.1:8081/v1/events", false),
        ("http://127.0.0.1:8080/v1/events", "http://127.0.0.1:8080/landing", false),
        ("https://api.example.com/v1/events", "http://api.example.com/v1/events", false),
        ("https://api.example.com/v1/events", "https://evil.example.com/v1/events", false),
    ])
    func aResponseFromAnotherURLIsTakenForARedirect(asked: String, answered: String, same: Bool) {
        // A canonicalized form of the asked URL is the same resource; any other scheme, host, port or path is not
        #expect(URLSessionTransport.sameOrigin(URL(string: answered)!, URL(string: asked)!) == same)
    }
}
