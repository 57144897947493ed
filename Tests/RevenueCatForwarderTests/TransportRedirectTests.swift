import Foundation
import PaywallTestSupport
import RevenueCatForwarder
import Testing

/// The transport itself never follows a redirect (the forwarder and the coming uploader both rely
/// on it): a 3xx comes back as the response, and the Location's server receives nothing.
struct TransportRedirectTests {
    @Test(arguments: [(301, "POST"), (302, "POST"), (303, "POST"), (307, "POST"), (308, "POST"), (302, "GET"), (308, "PUT")])
    func aRedirectIsReturnedAsItIsAndNeverFollowed(status: Int, method: String) async throws {
        // Given a server answering `status` with a Location on a second server
        let target = try RevenueCatStandIn()
        defer { target.stop() }
        let endpoint = try RevenueCatStandIn()
        defer { endpoint.stop() }
        endpoint.respondByDefault { _, _ in
            .status(status, body: "see elsewhere", headers: ["Location": "http://127.0.0.1:\(target.port)/landing"])
        }
        let transport = URLSessionTransport(timeout: .seconds(5))
        let request = HTTPRequest(method: method, url: endpoint.baseURL.appendingPathComponent("v1/events"),
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
