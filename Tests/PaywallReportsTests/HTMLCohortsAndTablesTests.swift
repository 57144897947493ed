import Foundation
import PaywallCore
import Testing

@testable import PaywallReports

/// The cohort heat map, and tables that stay short: no table on the page over 60 rows.
struct HTMLCohortsAndTablesTests {
    static let cohortColumns = [
        "cohort_date", "placement", "customers", "converted_3d", "conversion_rate_3d", "window_complete",
    ]

    /// 6 placements × 30 days of cohorts: 180 rows, which the page used to show as one table.
    static func cohorts() -> ReportTable {
        var rows: [[String]] = []
        for date in CalendarDays.from("2026-10-01", to: "2026-10-30") {
            for (index, placement) in ["a", "b", "c", "d", "e", "f"].enumerated() {
                let customers = 10 + index
                let converted = (index + (CalendarDays.ordinal(date) ?? 0)) % 5
                rows.append([
                    date, placement, "\(customers)", "\(converted)",
                    String(format: "%.4f", Double(converted) / Double(customers)),
                    date >= "2026-10-28" ? "false" : "true",
                ])
            }
        }
        return ReportTable(name: "cohort_conversion", columns: cohortColumns, rows: rows)
    }

    static func tableRowCounts(_ html: String) -> [Int] {
        html.components(separatedBy: "<table>").dropFirst().map { table in
            let body = table[..<(table.range(of: "</table>")?.lowerBound ?? table.endIndex)]
            return body.components(separatedBy: "<tbody>").last!.components(separatedBy: "<tr>").count - 1
        }
    }

    @Test func cohortsAreAHeatMapOfPlacementsByDayNotALongTable() throws {
        let context = HTMLReport.Context(
            period: "", timezone: "UTC", version: "0", firstDay: "2026-10-01", lastDay: "2026-10-30")
        let html = HTMLReport.render(tables: [Self.cohorts()], context: context)
        let section = try #require(html.components(separatedBy: "<section class=\"cohorts\">").dropFirst().first)
        let cohorts = String(section[..<(section.range(of: "</section>")?.lowerBound ?? section.endIndex)])
        #expect(!cohorts.contains("<table"), "no table in the cohort section")
        // One cell per row of the CSV, each titled with its counts; the open windows marked
        let cells = cohorts.matches(of: /<rect [^>]*class="cell( open)?"[^>]*><title>([^<]*)<\/title>/)
        #expect(cells.count == 180)
        #expect(cells.filter { $0.1 != nil }.count == 18, "3 days × 6 placements with the window still open")
        // 2026-10-01 is day 20362: placement c (index 2) has (2 + 20362) % 5 = 4 of 12
        #expect(cohorts.contains("<title>2026-10-01 · c: 33.3% (4 of 12 customers; window complete)</title>"))
        #expect(cohorts.contains("<title>2026-10-30 · a: "))
        // Darker is more: the highest rate (4 of 10) is the darkest cell, 0 the lightest
        let highest = try #require(cohorts.firstMatch(of: /fill-opacity:1\.000"><title>([^<]*)</))
        #expect(highest.1.contains(": 40.0% (4 of 10 customers"))
        #expect(Self.tableRowCounts(html).allSatisfy { $0 <= 60 })
    }

    @Test func aLongDataQualityTableTurnsWeeklyAndAnyOtherLongTableSaysWhereTheRestIs() {
        // 100 days of data quality: 15 weeks, each the sum of its days
        let days = CalendarDays.from("2026-08-01", to: "2026-11-08")
        #expect(days.count == 100)
        let quality = ReportTable(
            name: "data_quality", columns: ["date", "events_stored", "quarantined"],
            rows: days.map { [$0, "10", "1"] })
        // 80 products: the first 60 shown, the rest named
        let mix = ReportTable(
            name: "product_mix", columns: ["placement", "product", "purchases", "share"],
            rows: (1...80).map { ["p", String(format: "product%02d", $0), "1", "0.0125"] })
        let html = HTMLReport.render(tables: [quality, mix], context: HTMLReportTests.context)
        #expect(Self.tableRowCounts(html) == [60, 15])
        #expect(html.contains("The first 60 rows; 20 more are in product_mix.csv."))
        #expect(html.contains(">product60<") && !html.contains(">product61<"))
        #expect(html.contains("100 days do not fit one table: one row per week"))
        // 2026-08-01 is a Saturday: its week (Monday 07-27) holds 2 days, 08-03's the next 7, …
        #expect(html.contains("<td><bdi>2026-07-27</bdi></td><td class=\"num\">20</td><td class=\"num\">2</td>"))
        #expect(html.contains("<td><bdi>2026-08-03</bdi></td><td class=\"num\">70</td><td class=\"num\">7</td>"))
        // 11-08 is a Sunday: the last week is whole
        #expect(html.contains("<td><bdi>2026-11-02</bdi></td><td class=\"num\">70</td><td class=\"num\">7</td>"))
        #expect(html.contains("<th>week_<wbr>of</th>"))
        // 60 rows exactly stay as they are
        let sixty = ReportTable(name: "data_quality", columns: quality.columns, rows: Array(quality.rows.prefix(60)))
        let short = HTMLReport.render(tables: [sixty], context: HTMLReportTests.context)
        #expect(Self.tableRowCounts(short) == [60] && !short.contains("one row per week"))
    }
}
