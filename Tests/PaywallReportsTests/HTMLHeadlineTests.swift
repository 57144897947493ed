import Foundation
import PaywallCore
import Testing

@testable import PaywallReports

/// The headline at the top of the page: the last 7 days against the 7 before, per placement, each
/// change said in words with its p-value, from the report's own rows.
struct HTMLHeadlineTests {
    /// 14 days: onboarding 100 impressions a day throughout, 10 purchases a day then 20; settings 30
    /// then 40 impressions a day, 3 purchases a day throughout.
    static func tables(days: [String]) -> [ReportTable] {
        var rows: [[String]] = []
        for (index, date) in days.enumerated() {
            let later = index >= days.count - 7
            for (placement, impressions, purchased) in [
                ("onboarding", 100, later ? 20 : 10), ("settings", later ? 40 : 30, 3),
            ] {
                rows.append(
                    [
                        date, placement, "\(impressions)", "0", "0", "\(purchased)", "0", "0", "0", "0", "0", "0", "",
                        "", "",
                    ])
            }
        }
        return [ReportTable(name: "conversion_funnel", columns: HTMLDailyChartsTests.columns, rows: rows)]
    }

    static func headline(_ html: String) -> String {
        let section = html.components(separatedBy: "<section class=\"headline\">").dropFirst().first ?? ""
        return String(section[..<(section.range(of: "</section>")?.lowerBound ?? section.endIndex)])
    }

    @Test func eachPlacementsWeekOverWeekChangeIsSaidInWordsWithItsPValue() throws {
        let days = CalendarDays.from("2026-10-01", to: "2026-10-14")
        let context = HTMLReport.Context(
            period: "", timezone: "UTC", version: "0", firstDay: days.first, lastDay: days.last)
        let html = HTMLReport.render(tables: Self.tables(days: days), context: context)
        let headline = Self.headline(html)
        // At the top of the page, before everything but the title
        let top = try #require(html.range(of: "<section class=\"headline\">"))
        #expect(html.range(of: "Placements at a glance")!.lowerBound > top.lowerBound)
        #expect(
            headline.contains(
                "The last 7 days (2026-10-08 to 2026-10-14) against the 7 before (2026-10-01 to 2026-10-07)"))
        // onboarding: 700 → 700 impressions; 70 of 700 → 140 of 700 purchases: z = 5.24,
        // p = 1.6e-7 by Python's NormalDist (pooled two-proportion test)
        #expect(
            headline.contains(
                "<q><bdi>onboarding</bdi></q>: impressions 700 → 700 (no change); purchases per impression 10.0% (70 of 700) → 20.0% (140 of 700) (+10.0 points), <strong class=\"real\">likely a real change (p &lt; 0.0001)</strong>."
            ), "\(headline)")
        // settings: 210 → 280 impressions, (280 − 210) / √490 = 3.16, p = 0.0016; 21 of 210 → 21 of
        // 280: p = 0.3279
        #expect(
            headline.contains(
                "<q><bdi>settings</bdi></q>: impressions 210 → 280 (+33.3%), <strong class=\"real\">likely a real change (p = 0.0016)</strong>; purchases per impression 10.0% (21 of 210) → 7.5% (21 of 280) (−2.5 points), could be noise (p = 0.3279)."
            ), "\(headline)")
    }

    @Test func onlyTheLastFourteenDaysCountAndAShorterReportSaysSo() {
        // 20 days: the first 6 are outside both weeks
        let days = CalendarDays.from("2026-10-01", to: "2026-10-20")
        let context = HTMLReport.Context(
            period: "", timezone: "UTC", version: "0", firstDay: days.first, lastDay: days.last)
        let headline = Self.headline(HTMLReport.render(tables: Self.tables(days: days), context: context))
        #expect(headline.contains("10.0% (70 of 700) → 20.0% (140 of 700)"), "\(headline)")
        // 13 days: not enough
        let short = CalendarDays.from("2026-10-01", to: "2026-10-13")
        let shortContext = HTMLReport.Context(
            period: "", timezone: "UTC", version: "0", firstDay: short.first, lastDay: short.last)
        let none = Self.headline(HTMLReport.render(tables: Self.tables(days: short), context: shortContext))
        #expect(none.contains("Not enough data for a week-over-week comparison: this report covers 13 days"))
        #expect(!none.contains("<li>"))
        // A week without impressions cannot be compared, and says so
        let change = WeekOverWeek.Change(placement: "p", impressions: (0, 5), purchased: (0, 1))
        #expect(change.conversionP == nil && change.impressionsP != nil)
        #expect(HTMLReport.headlineItem(change).contains("cannot be compared (a week without impressions)"))
        #expect(WeekOverWeek.verdict(0.05) == "could be noise (p = 0.0500)")
        #expect(WeekOverWeek.verdict(0.0499) == "likely a real change (p = 0.0499)")
    }
}
