import Foundation
import PaywallSQLite
import PaywallTestSupport
import Testing

struct DemoCommandTests {
    let cli = try! CommandRunner()
    static let reports = [
        "encounter_funnel", "conversion_funnel", "cohort_conversion", "placement_summary",
        "product_mix", "offering_comparison", "data_quality",
    ]

    func csvs(in folder: URL) throws -> [String: Data] {
        try Dictionary(
            uniqueKeysWithValues: Self.reports.map {
                ($0, try Data(contentsOf: folder.appendingPathComponent("paywall-report/\($0).csv")))
            })
    }

    @Test func theDemoRecordsReportsAndGivesTheSameNumbersTwice() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let first = try await cli.run(["demo"], environment: ["REVENUECAT_API_KEY": ""], directory: scratch.url)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("Simulated 5000 customers, "))
        #expect(first.stdout.contains("arrived late"))
        #expect(first.stdout.contains("The second nightly run recomputed 3 day(s)"))
        for placement in ["onboarding", "feature_gate", "limit_reached", "settings", "promo_banner", "winback"] {
            #expect(first.stdout.contains("\n\(placement) "), "summary row for \(placement)")
        }
        // The offering comparison (the same every run: fixed seed): at onboarding the trial offering converts
        // better, decided by the always-valid interval, but earns less per customer, and the demo says which
        // ranking to trust; settings is not decided; both tests are split evenly, so no sample-ratio warning
        #expect(
            first.stdout.contains(
                "Offering comparison (customers who bought, of the customers who saw each offering; against each placement's control; decided only where the always-valid 95 % interval of the difference excludes zero):"
            ))
        #expect(first.stdout.contains("  onboarding: onboarding_trial converts better than onboarding_classic ("))
        #expect(
            first.stdout.contains("    by conversion:           onboarding_trial 24.6% > onboarding_classic 18.7%\n"))
        let byRevenue = try #require(
            first.stdout.split(separator: "\n").first { $0.hasPrefix("    by revenue per customer: onboarding_") })
        #expect(byRevenue.hasPrefix("    by revenue per customer: onboarding_classic $"), "\(byRevenue)")
        #expect(
            first.stdout.contains(
                "    Trust revenue per customer: onboarding_trial converts more, but its conversions include 514 free-trial starts"
            ))
        #expect(!first.stdout.contains("sample-ratio check finds"), "\(first.stdout)")
        #expect(
            first.stdout.contains(
                "  settings: not decided yet — no offering's always-valid interval against settings_compact excludes zero."
            ))
        #expect(first.stdout.contains("    Both rankings agree: settings_compact leads by conversion and by money.\n"))
        #expect(first.stdout.contains("RevenueCat forwarding: skipped: no RevenueCat API key"))
        #expect(first.stdout.contains("Database: paywall-demo.sqlite"))
        #expect(FileManager.default.fileExists(atPath: scratch.path("paywall-demo.sqlite")))
        // The subscription side: RevenueCat's webhooks for the purchases, stored through the real ingest
        let webhooks = try #require(first.stdout.split(separator: "\n").first { $0.hasPrefix("RevenueCat webhooks: ") })
        let numbers = webhooks.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        #expect(numbers.count == 5, "\(webhooks)")
        if numbers.count == 5 {
            let (delivered, stored, sandbox, duplicates) = (numbers[0], numbers[2], numbers[3], numbers[4])
            #expect(stored > 0 && sandbox > 0 && duplicates > 0 && delivered == stored + duplicates, "\(webhooks)")
            let database = try Connection(
                path: scratch.path("paywall-demo.sqlite"), options: OpenOptions(create: false))
            #expect(try database.scalar("SELECT count(*) FROM subscription_events")?.int64 == Int64(stored))
            #expect(
                try database.scalar(
                    "SELECT count(*) FROM subscription_events WHERE environment = 'SANDBOX' OR type = 'TEST'")?.int64
                    == Int64(sandbox))
        }
        let run =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: scratch.url.appendingPathComponent("paywall-report/run.json"))) as? [String: Any]
        #expect((run?["days_recomputed"] as? [String])?.count == 3)
        let before = try csvs(in: scratch.url)
        let second = try await cli.run(["demo"], environment: ["REVENUECAT_API_KEY": ""], directory: scratch.url)
        #expect(second.status == 0)
        #expect(try csvs(in: scratch.url) == before, "the same seed gives byte-identical reports")
        let summaryLines = { (text: String) in text.split(separator: "\n").filter { !$0.hasPrefix("Done in") } }
        #expect(summaryLines(first.stdout) == summaryLines(second.stdout))
    }

    @Test func anotherSeedGivesOtherNumbersAndQuietPrintsNothing() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let out = scratch.path("out")
        let result = try await cli.run(
            [
                "demo", "--seed", "7", "--customers", "300", "--days", "10", "--out", out,
                "--db", scratch.path("demo.sqlite"), "--quiet",
            ],
            environment: ["REVENUECAT_API_KEY": ""])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(FileManager.default.fileExists(atPath: out + "/placement_summary.csv"))
        let again = try await cli.run(["demo", "--db", scratch.path("demo.sqlite"), "--out", out])
        #expect(again.status == 73)
        #expect(again.stderr.contains("already holds"))
        #expect(again.stderr.contains("Choose another --db path"))
    }

    @Test func withAKeyTheDemoForwardsEveryImpression() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let standIn = try RevenueCatStandIn(recordExchanges: false)
        defer { standIn.stop() }
        let result = try await cli.run(
            ["demo", "--customers", "200", "--days", "5", "--endpoint", standIn.baseURL.absoluteString],
            environment: ["REVENUECAT_API_KEY": "test_DemoKey123"], directory: scratch.url)
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try await cli.run(["stats", "--db", scratch.path("paywall-demo.sqlite")]).stdout
        let shown = stats.split(separator: "\n").first { $0.contains("paywall_shown") }?.split(separator: " ").last
            .flatMap { Int($0) }
        #expect(shown != nil && standIn.acceptedEventIDs.count == shown)
        #expect(result.stdout.contains("RevenueCat forwarding: delivered \(shown ?? -1),"))
        #expect(standIn.violations.isEmpty)
        #expect(!result.stdout.contains("test_DemoKey123"))
    }

    @Test(arguments: [["--seed", "x"], ["--customers", "0"], ["--days", "400"], ["extra"]])
    func badOptionsAreUsageErrors(arguments: [String]) async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let result = try await cli.run(["demo"] + arguments, directory: scratch.url)
        #expect(result.status == 64)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("paywall-demo.sqlite")))
    }
}
