import Foundation
import PaywallTestSupport
import Testing

/// The subscription side through the built binary, as a user runs it: paywall events imported,
/// RevenueCat webhook bodies imported with `import --revenuecat`, then `report`: the purchase is
/// attributed to the paywall its buyer saw a minute before, and revenue.csv, data_quality.csv and
/// the page show it.
struct RevenueReportCommandTests {
    let cli = try! CommandRunner()

    @Test func importedWebhooksShowUpAsRevenueOfThePaywallSeenBeforeBuying() async throws {
        let scratch = TemporaryDirectory(prefix: "cli-revenue")
        let db = scratch.path("events.sqlite")
        // Given rc_cust_1's paywall at onboarding a minute before the purchase (2025-11-29T07:59:50Z)
        let events = try scratch.write(
            "events.ndjson",
            ForgetCommandTests.presentation(1, user: "rc_cust_1", at: 1_764_403_130_000).joined(separator: "\n") + "\n")
        let imported = try await cli.run(["import", events, "--db", db])
        #expect(imported.status == 0, "\(imported.stderr)")
        // and RevenueCat's webhooks for the purchase ($4.99, 30 % commission) and a sandbox purchase
        let webhooks = try scratch.write(
            "webhooks.ndjson",
            [
                RevenueCatImportCommandTests.body("EVT-R1"),
                RevenueCatImportCommandTests.body("EVT-R2", extra: #","environment":"SANDBOX""#),
            ].joined(separator: "\n") + "\n")
        let subscriptions = try await cli.run(["import", "--revenuecat", webhooks, "--db", db])
        #expect(subscriptions.status == 0, "\(subscriptions.stderr)")
        // When the report runs for that day
        let out = scratch.path("out")
        let report = try await cli.run([
            "report", "--from", "2025-11-29", "--to", "2025-11-29", "--now", "2025-12-01T00:00:00Z", "--out", out,
            "--db", db,
        ])
        #expect(report.status == 0, "\(report.stderr)")
        // Then the purchase is onboarding's: one paid start, $4.99, proceeds $3.49 (4.993 rounded), per impression $4.99
        let revenue = try String(contentsOfFile: out + "/revenue.csv", encoding: .utf8)
        #expect(
            revenue
                == "date,placement,impressions,paid_starts,trial_starts,trial_conversions,trials_pending,trial_conversion_rate,refunds,revenue_usd,proceeds_usd,revenue_per_impression\r\n"
                + "2025-11-29,onboarding,1,1,0,0,0,,0,4.99,3.49,4.9900\r\n", "\(revenue)")
        // and data quality counts the production event and the sandbox one apart
        let quality = try String(contentsOfFile: out + "/data_quality.csv", encoding: .utf8)
        #expect(quality.contains("\r\n2025-11-29,") && quality.hasSuffix(",1,0,1\r\n"), "\(quality)")
        let page = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        #expect(page.contains("<h2>Revenue per placement</h2>") && page.contains("<td class=\"num\">4.99</td>"))
    }
}
