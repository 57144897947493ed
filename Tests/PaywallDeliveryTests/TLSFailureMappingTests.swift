import Foundation
import Testing

@testable import PaywallDelivery

/// A failed TLS handshake means no byte of the request left: it is `cannotConnect` (so the report
/// counts no bytes sent), with a detail that says what to check; Foundation on Linux reports a
/// handshake with a plain HTTP server only as an unknown error, which counts as one to an https URL.
struct TLSFailureMappingTests {
    @Test func tlsFailuresAreCannotConnect() {
        let https = URL(string: "https://collector.example:8443")!
        for code in [URLError.Code.unknown, .secureConnectionFailed, .serverCertificateUntrusted] {
            guard case .cannotConnect(let detail) = URLSessionTransport.transportError(URLError(code), url: https)
            else {
                Issue.record("\(code.rawValue) is not cannotConnect")
                continue
            }
            #expect(detail.contains("TLS handshake failed"))
        }
        // An unknown error to a plain http URL stays what it is
        let plain = URL(string: "http://collector.example:8080")!
        #expect(URLSessionTransport.transportError(URLError(.unknown), url: plain) == .other(detail: "URLError -1"))
    }
}
