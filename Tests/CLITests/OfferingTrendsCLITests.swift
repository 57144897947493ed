import Foundation
import PaywallTestSupport
import Testing

/// The page's offering trends through the built binary, against an independent count: the demo's
/// own page (its last nightly run folded late events into days it had already reported) and a range
/// report of the same window, each read back point by point by revenue_check.py (pandas straight
/// from the store's events and subscription tables, not the report rollups).
struct OfferingTrendsCLITests {
    let cli = try! CommandRunner()

    /// The fields of `run.json` this test reads.
    struct Run: Decodable {
        var windowFrom: String
        var windowTo: String
        var startedAt: Int64
        var daysRecomputed: [String]

        enum CodingKeys: String, CodingKey {
            case windowFrom = "window_from"
            case windowTo = "window_to"
            case startedAt = "started_at"
            case daysRecomputed = "days_recomputed"
        }
    }

    /// The point titles of every offering trend chart of a page, by the chart's label, in page order.
    static func trendCharts(_ page: String) -> [String: [String]] {
        var charts: [String: [String]] = [:]
        for chart in page.components(separatedBy: "<svg class=\"chart daily\"").dropFirst() {
            let svg = chart.components(separatedBy: "</svg>")[0]
            guard let label = svg.firstMatch(of: /aria-label="([^"]*)"/).map({ String($0.1) }),
                label.contains(" by offering over time at ")
            else { continue }
            charts[label] = svg.matches(of: /<title>([^<]*)<\/title>/).map { String($0.1) }
        }
        return charts
    }

    @Test func theDemosNightlyAfterLateEventsAndARangeReportDrawTheIndependentCounts() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let demo = try await cli.run(
            ["demo", "--customers", "600", "--days", "10", "--quiet"],
            environment: ["REVENUECAT_API_KEY": ""], directory: scratch.url)
        #expect(demo.status == 0, "\(demo.stderr)")
        let run = try JSONDecoder().decode(
            Run.self, from: Data(contentsOf: scratch.url.appendingPathComponent("paywall-report/run.json")))
        // The demo's page comes from its second nightly run, which folded late events into reported days
        #expect(!run.daysRecomputed.isEmpty)
        let store = scratch.path("paywall-demo.sqlite")
        let range = scratch.path("range")
        let report = try await cli.run([
            "report", "--from", run.windowFrom, "--to", run.windowTo, "--now", String(run.startedAt), "--out", range,
            "--db", store,
        ])
        #expect(report.status == 0, "\(report.stderr)")
        // Each page's trend points equal the independent count (and the CSVs' money columns still do)
        let script = Golden.packageRoot().appendingPathComponent("Tests/PaywallReportsTests/scripts/revenue_check.py")
        for out in [scratch.path("paywall-report"), range] {
            let check = try await Python.runner().run([
                script.path, store, out, run.windowFrom, run.windowTo, String(run.startedAt),
            ])
            #expect(
                check.status == 0, "revenue_check.py \(out) (\(Python.installAdvice)):\n\(check.stdout)\(check.stderr)")
            let points = check.stdout.firstMatch(of: /(\d+) offering trend points/).flatMap { Int($0.1) } ?? 0
            #expect(points >= 20, "too few trend points compared: \(check.stdout)")
        }
        // and the nightly's page and the range report's draw the same points: onboarding and settings
        // each compare two offerings, a conversion and a revenue chart each
        let nightlyPage = try String(contentsOfFile: scratch.path("paywall-report/report.html"), encoding: .utf8)
        let rangePage = try String(contentsOfFile: range + "/report.html", encoding: .utf8)
        let charts = Self.trendCharts(nightlyPage)
        #expect(charts.count == 4 && charts.values.allSatisfy { !$0.isEmpty }, "\(charts.keys.sorted())")
        #expect(charts == Self.trendCharts(rangePage))
    }
}
