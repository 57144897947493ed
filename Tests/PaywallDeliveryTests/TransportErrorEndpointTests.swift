import Foundation
import PaywallDelivery
import PaywallTestSupport
import Testing

/// Network errors name the host and port a request tried (``TransportError/explained(destination:url:)``).
struct TransportErrorEndpointTests {
    @Test func hostAndPortMakeTheSchemesDefaultPortExplicit() throws {
        func hostAndPort(_ text: String) throws -> String {
            TransportError.hostAndPort(try #require(URL(string: text)))
        }
        #expect(try hostAndPort("http://127.0.0.1:9/v1/events") == "127.0.0.1:9")
        #expect(try hostAndPort("https://api-paywalls.revenuecat.com/v1/events") == "api-paywalls.revenuecat.com:443")
        #expect(try hostAndPort("http://events.example.com/v1/events") == "events.example.com:80")
        #expect(try hostAndPort("http://[::1]:8080/v1/events") == "[::1]:8080")
        // Never the user info, path or query
        #expect(try hostAndPort("https://user:secret@example.com:8443/p?q=key") == "example.com:8443")
    }

    @Test func everyCaseNamesTheDestinationAtItsHostAndPort() throws {
        let url = try #require(URL(string: "http://127.0.0.1:9/v1/events"))
        let cases: [TransportError] = [
            .timedOut, .cannotConnect(detail: "connection refused or host unreachable"), .connectionLost,
            .unreadableResponse(detail: "x"), .redirected(status: 301), .other(detail: "y"),
        ]
        for error in cases {
            #expect(error.explained(destination: "the collector", url: url).contains("the collector at 127.0.0.1:9"))
        }
        #expect(
            TransportError.cannotConnect(detail: "connection refused or host unreachable")
                .explained(destination: "the collector", url: url)
                == "cannot connect to the collector at 127.0.0.1:9 (connection refused or host unreachable)")
    }

    @Test func aRealRefusedConnectionIsWordedNotACode() async throws {
        // Given a port that refuses connections (held for the test: no server of another test can take it)
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        let transport = URLSessionTransport(timeout: .seconds(10))
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/v1/events"))
        // When a request goes there, then it fails as a refused connection, in words
        do {
            _ = try await transport.send(HTTPRequest(method: "POST", url: url, headers: [], body: Data()))
            Issue.record("a request to a closed port succeeded")
        } catch let error as TransportError {
            #expect(error == .cannotConnect(detail: "connection refused or host unreachable"), "\(error)")
        }
    }
}
