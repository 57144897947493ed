import Foundation
import PaywallTestSupport
import Testing

/// An `https://` endpoint that is a plain HTTP server: no byte of the body leaves (the TLS handshake
/// fails first), so the summary says 0 bytes sent, and the error names the handshake and what to
/// do (give an http:// URL), not a bare URLError number. The built binary against the built
/// `serve` on 127.0.0.1.
@Suite(.serialized)
struct UploadTLSMismatchTests {
    @Test func anHTTPSEndpointOnAPlainServerSaysTheHandshakeFailedAndNothingWasSent() async throws {
        let folder = TemporaryDirectory(prefix: "upload-tls")
        let cli = try CommandRunner(product: "paywall-analytics")
        let central = folder.path("central.sqlite")
        let key = try cli.runBlocking(["keys", "add", "ios-app", "--db", central]).stdout
            .trimmingCharacters(in: .newlines)
        let server = try CollectorProcess(db: central, folder: folder)
        defer { server.stop() }
        let source = folder.path("app.sqlite")
        #expect(try await cli.run(["demo", "--db", source, "--out", folder.path("rep")]).status == 0)
        // When it uploads to https://127.0.0.1:PORT, a plain HTTP collector
        let run = try await cli.run(
            [
                "--db", source, "upload", "--endpoint", "https://127.0.0.1:\(server.port)", "--forwarding", "collector",
                "--max-batches", "1",
            ], environment: ["PAYWALL_COLLECTOR_KEY": key])
        // Then nothing was sent or stored, and the message says why and what to do
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stdout.contains("(1 request, 0 bytes sent)"), "\(run.stdout)")
        #expect(run.stderr.contains("TLS handshake failed") && run.stderr.contains("http:// URL"), "\(run.stderr)")
        #expect(!run.stderr.contains(key))
        #expect(try cli.runBlocking(["stats", "--db", central]).stdout.contains("Events: 0"))
    }
}
