import Foundation
import PaywallTestSupport
import Testing

struct EmbeddingExampleTests {
    @Test func theREADMESampleRunsAndRecordsAPurchaseFunnel() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("example.sqlite")
        let example = try CommandRunner(product: "embedding-example")
        let run = try await example.run([db], environment: ["REVENUECAT_API_KEY": ""])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "recorded 4 events into \(db)\n")
        #expect(run.stderr.contains("RevenueCat forwarding is off"))
        let stats = try await CommandRunner().run(["stats", "--db", db]).stdout
        for name in ["paywall_shown", "paywall_plan_selected", "paywall_purchase_started", "paywall_closed"] {
            #expect(stats.contains("  \(name.padding(toLength: 28, withPad: " ", startingAt: 0))1\n"))
        }
    }
}
