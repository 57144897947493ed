import Foundation
import PaywallTestSupport
import Testing

extension CommandRunner {
    /// A small demo database made by the built binary (300 customers over 5 days from 2026-10-01).
    func demoDatabase(_ scratch: TemporaryDirectory) async throws -> String {
        let db = scratch.path("demo.sqlite")
        let result = try await run(
            ["demo", "--customers", "300", "--days", "5", "--db", db, "--out", scratch.path("demo-out"), "--quiet"],
            environment: ["REVENUECAT_API_KEY": ""])
        #expect(result.status == 0, "\(result.stderr)")
        return db
    }
}
