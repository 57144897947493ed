import Foundation
import PaywallTestSupport
import Testing

/// Hardening item 1: `forward` never follows a redirect. A 3xx is a failure retried with backoff,
/// and the key goes only to the configured endpoint.
struct ForwardRedirectTests {
    let cli = try! CommandRunner()
    static let key = "appl_RedirectKey0123456789"

    /// `sqlite3 db sql`'s output, trimmed.
    func query(_ db: String, _ sql: String) throws -> String {
        let output = try CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/env")).runBlocking([
            "sqlite3", db, sql,
        ])
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func aRedirectIsAFailureAndItsTargetReceivesNothing(status: Int) async throws {
        // Given 22 pending impressions, an endpoint A answering every request with `status` and a
        // Location on another port B, and B, which counts every connection and byte it receives
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("events.sqlite")
        let file = try scratch.write("i.ndjson", (1...22).map { Sample.shown($0) }.joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", file, "--db", db]).status == 0)
        let target = try RevenueCatStandIn()
        defer { target.stop() }
        let endpoint = try RevenueCatStandIn()
        defer { endpoint.stop() }
        let location = "http://127.0.0.1:\(target.port)/landing"
        endpoint.respondByDefault { _, _ in .status(status, body: "moved", headers: ["Location": location]) }

        // When forward runs against A
        let first = try await cli.run(
            ["forward", "--db", db, "--endpoint", endpoint.baseURL.absoluteString],
            environment: ["REVENUECAT_API_KEY": Self.key])

        // Then B received not one byte, A got only the one batch, nothing is delivered, and the run exits 69.
        // (A second copy of the same request reached A once, in a loaded CI run, while the outbox below
        // recorded one attempt: it came from below the program, and it is no redirect. So every request A
        // received must be that POST to the events path, at most twice.)
        #expect(target.received.connections == 0 && target.received.bytes == 0, "the redirect target was contacted")
        let requests = endpoint.exchanges.map(\.request)
        #expect((1...2).contains(requests.count), "\(requests.count) requests")
        #expect(requests.allSatisfy { $0.method == "POST" && $0.path == "/v1/events" && $0.body == requests[0].body })
        #expect(first.status == 69, "\(first.stdout)\n\(first.stderr)")
        #expect(first.stdout.hasPrefix("delivered 0, will retry 22, dead-lettered 0"), "\(first.stdout)")
        #expect(first.stderr.contains("redirect") && first.stderr.contains("never followed"), "\(first.stderr)")
        #expect(try query(db, "SELECT count(*) FROM deliveries") == "0")
        #expect(try query(db, "SELECT count(*) FROM outbox WHERE attempts = 1") == "22", "kept for a later attempt")
        #expect(try query(db, "SELECT count(*) FROM outbox WHERE next_attempt_at > 0") == "22", "with a backoff time")
        #expect(try await cli.run(["stats", "--db", db]).stdout.contains("RevenueCat outbox: 22 pending, 0 delivered"))
    }

    @Test func aRelativeRedirectOnTheSameServerIsNotFollowedEither() async throws {
        // Given an endpoint answering 307 with a relative Location (same origin, another path)
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("events.sqlite")
        let file = try scratch.write("i.ndjson", (1...3).map { Sample.shown($0) }.joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", file, "--db", db]).status == 0)
        let endpoint = try RevenueCatStandIn()
        defer { endpoint.stop() }
        endpoint.respondByDefault { _, _ in .status(307, body: "", headers: ["Location": "/elsewhere"]) }

        // When forward runs
        let result = try await cli.run(
            ["forward", "--db", db, "--endpoint", endpoint.baseURL.absoluteString],
            environment: ["REVENUECAT_API_KEY": Self.key])

        // Then only the configured URL was asked, once, and the impressions stay pending
        #expect(result.status == 69)
        #expect(endpoint.exchanges.map(\.request.path) == ["/v1/events"])
        #expect(try query(db, "SELECT count(*) FROM deliveries") == "0")
    }
}
