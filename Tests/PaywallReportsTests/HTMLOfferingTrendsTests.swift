import Foundation
import PaywallCore
import PaywallSQLite
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// The page's offering trends on hand-built traffic (OfferingComparisonTests' presentations plus two
/// subscriptions): each offering's customers and converted customers counted from the range's first
/// day through each day, its attributed revenue per customer, a day the offering was not seen a gap,
/// each point's title saying what it counts, the same from both engines and from the nightly job.
struct HTMLOfferingTrendsTests {
    static let (d1, d2, h) = (ReportFixture.day1, ReportFixture.day2, ReportFixture.hour)

    typealias Sub = SubscriptionFixture.Event
    /// u4's two purchases: $9.99 after P110 ("two"/"a", day 1) and $4.99 after P115 ("two"/"a", day 2).
    static let subscriptions: [Sub] = [
        Sub(
            id: "e1", type: "INITIAL_PURCHASE", transaction: "T1", at: d1 + 4 * h + 9000, user: "u4",
            purchasedAt: d1 + 4 * h + 9000, price: 9_990_000, proceeds: 8_000_000),
        Sub(
            id: "e2", type: "INITIAL_PURCHASE", transaction: "T2", at: d2 + 1 * h + 4000, user: "u4",
            purchasedAt: d2 + 1 * h + 4000, price: 4_990_000, proceeds: 4_000_000),
    ]

    static func store(_ folder: TemporaryDirectory) throws -> Connection {
        let connection = try SubscriptionFixture.openStore(path: folder.path("db"))
        try ReportFixture.insert(OfferingComparisonTests.events, into: connection)
        try SubscriptionFixture.insert(subscriptions, into: connection)
        return connection
    }

    /// Every offering trend chart of the page by its label, each with its series' point titles.
    static func trendTitles(_ html: String) -> [String: [String: [String]]] {
        var out: [String: [String: [String]]] = [:]
        for piece in html.components(separatedBy: "aria-label=\"").dropFirst() {
            let label = String(piece.prefix { $0 != "\"" })
            guard label.contains(" by offering over time at ") else { continue }
            out[label] = titles(html, chart: label)
        }
        return out
    }

    /// The points' titles of each series (by its name) of the chart labelled `label`.
    static func titles(_ html: String, chart label: String) -> [String: [String]] {
        guard let start = html.range(of: "aria-label=\"\(label)\"") else { return [:] }
        let chart = String(html[start.upperBound...]).components(separatedBy: "</svg>")[0]
        var out: [String: [String]] = [:]
        for group in chart.components(separatedBy: "<g class=\"series-group\" aria-label=\"").dropFirst() {
            let name = String(group.prefix { $0 != "\"" })
            out[name] = group.components(separatedBy: "<title>").dropFirst().map {
                String($0.components(separatedBy: "</title>")[0])
            }
        }
        return out
    }

    /// The number of line segments (unbroken runs of days) of each series of the chart.
    static func lines(_ html: String, chart label: String) -> [String: Int] {
        guard let start = html.range(of: "aria-label=\"\(label)\"") else { return [:] }
        let chart = String(html[start.upperBound...]).components(separatedBy: "</svg>")[0]
        var out: [String: Int] = [:]
        for group in chart.components(separatedBy: "<g class=\"series-group\" aria-label=\"").dropFirst() {
            out[String(group.prefix { $0 != "\"" })] = group.components(separatedBy: "class=\"series s").count - 1
        }
        return out
    }

    @Test(arguments: ReportEngine.allCases)
    func conversionAndRevenuePerCustomerAreCountedFromTheFirstDay(_ engine: ReportEngine) throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given the hand-built traffic and u4's two attributed purchases
        var reports = FunnelReport(connection: try Self.store(folder), now: .constant(ReportFixture.day5))
        reports.engine = engine
        // When the range report runs over five days
        try reports.report(
            from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"), into: folder.path("out"))
        let html = try String(contentsOfFile: folder.path("out/report.html"), encoding: .utf8)
        // Then "two"/"a" has 2 customers (u4 bought, u5 did not) on day 1 and 3 by day 2 (u6 new, u4 and u5
        // not counted again), still 1 converted; "b" is seen on day 1 only; days 3 to 5 are gaps
        let conversion = Self.titles(html, chart: "Conversion by offering over time at two")
        #expect(
            conversion == [
                "a": [
                    "2026-11-01 to 2026-11-01: 1 of 2 customers who saw offering a at two converted, 50.0% (95% 9.5–90.5%)",
                    "2026-11-01 to 2026-11-02: 1 of 3 customers who saw offering a at two converted, 33.3% (95% 6.1–79.2%)",
                ],
                "b": [
                    "2026-11-01 to 2026-11-01: 0 of 1 customer who saw offering b at two converted, 0.0% (95% 0.0–79.3%)"
                ],
            ])
        #expect(Self.lines(html, chart: "Conversion by offering over time at two") == ["a": 1, "b": 0])
        // and the revenue per customer divides the revenue to each day by the customers to that day
        // ($9.99 / 2 = $4.995, half to even $5.00; $14.98 / 3 = $4.9933)
        #expect(
            Self.titles(html, chart: "Revenue per customer by offering over time at two") == [
                "a": [
                    "2026-11-01 to 2026-11-01: $5.00 per customer ($9.99 from the subscriptions attributed to offering a at two, over 2 customers who saw it)",
                    "2026-11-01 to 2026-11-02: $4.99 per customer ($14.98 from the subscriptions attributed to offering a at two, over 3 customers who saw it)",
                ],
                "b": [
                    "2026-11-01 to 2026-11-01: $0.00 per customer ($0.00 from the subscriptions attributed to offering b at two, over 1 customer who saw it)"
                ],
            ])
        // A presentation whose first impression had no offering is its own line, "(none)"; "tie"'s "k" is
        // seen on days 1 and 2, its "m" on day 1 only (the day-1 rows of both are cumulative from day 1)
        let firstEmpty = Self.titles(html, chart: "Conversion by offering over time at first-empty")
        #expect(
            firstEmpty["(none)"] == [
                "2026-11-01 to 2026-11-01: 1 of 2 customers who saw offering (none) at first-empty converted, 50.0% (95% 9.5–90.5%)"
            ])
        #expect(
            firstEmpty["x"] == [
                "2026-11-01 to 2026-11-01: 0 of 1 customer who saw offering x at first-empty converted, 0.0% (95% 0.0–79.3%)"
            ])
        let tie = Self.titles(html, chart: "Conversion by offering over time at tie")
        #expect(tie["k"]?.count == 2 && tie["m"]?.count == 1, "\(tie)")
        #expect(
            tie["k"]?.last
                == "2026-11-01 to 2026-11-02: 0 of 2 customers who saw offering k at tie converted, 0.0% (95% 0.0–65.8%)"
        )
        // And the last point of every line is the offering comparison's figure
        let comparison = try String(contentsOfFile: folder.path("out/offering_comparison.csv"), encoding: .utf8)
        for line in comparison.split(separator: "\r\n").dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard ["two", "tie", "first-empty"].contains(cells[0]) else { continue }
            let name = cells[1].isEmpty ? "(none)" : cells[1]
            let last = Self.titles(html, chart: "Conversion by offering over time at \(cells[0])")[name]?.last
            #expect(last?.contains(": \(cells[4]) of \(cells[2]) customer") == true, "\(cells) vs \(last ?? "none")")
        }
    }

    @Test func theNightlyJobDrawsTheSameTrendsAsTheRangeReport() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let nightly = FunnelReport(connection: try Self.store(folder), now: .constant(ReportFixture.day5))
        // Given the nightly job's page (read from its day partials) and a range report of its window
        let run = try nightly.nightly(into: folder.path("nightly"), version: "t")
        try nightly.report(
            from: try ReportDate(run.windowFrom), to: try ReportDate(run.windowTo), into: folder.path("range"))
        let nightlyPage = try String(contentsOfFile: folder.path("nightly/report.html"), encoding: .utf8)
        let rangePage = try String(contentsOfFile: folder.path("range/report.html"), encoding: .utf8)
        // Then both draw the same points, in every chart
        let nightlyTrends = Self.trendTitles(nightlyPage)
        #expect(nightlyTrends.count == 8, "\(nightlyTrends.keys.sorted())")
        #expect(nightlyTrends["Conversion by offering over time at two"]?["a"]?.count == 2)
        #expect(nightlyTrends == Self.trendTitles(rangePage))
    }

    @Test func aPlacementWithOneOfferingHasNoTrendCharts() {
        let comparison = ReportTable(
            name: "offering_comparison", columns: HTMLOfferingsTests.columns,
            rows: [HTMLOfferingsTests.table.rows[4]])
        let trends = ReportTable(
            name: OfferingTrends.name, columns: OfferingTrends.columns,
            rows: [["2026-10-01", "winback", "default", "3", "1", "0"]])
        let html = HTMLReport.render(tables: [comparison, trends], context: HTMLReportTests.context)
        #expect(!html.contains("over time at winback"))
    }
}
