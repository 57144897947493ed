import Foundation
import PaywallDelivery
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
        // Given a port nothing listens on (bound, then closed before the request)
        let port = try Self.closedPort()
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

    /// A TCP port on 127.0.0.1 that was free a moment ago and is closed now.
    static func closedPort() throws -> UInt16 {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EBADF) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }
}
