import Foundation
import PaywallCore
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// The page's daily charts: a calendar axis where a day without data is a gap, every conversion
/// point a `<circle>` titled `DATE: RATE% (X of N; 95% LO–HI%)` with its Wilson interval drawn as a
/// band, and round, titled axes.
struct HTMLDailyChartsTests {
    static let columns = [
        "date", "placement", "impressions", "plan_selected", "purchase_started", "purchased", "restored",
        "dismissed_close_button", "dismissed_continue_free", "unclosed", "bounces", "purchase_cancellations",
        "conversion_rate", "open_s_p50", "open_s_p90",
    ]

    /// `onboarding` on 10-01, 10-02, 10-04 and 10-05 (no row on 10-03) and on 10-06 with no impression.
    static func tables() -> [ReportTable] {
        func row(_ date: String, _ impressions: Int, _ purchased: Int) -> [String] {
            [date, "onboarding", "\(impressions)", "0", "0", "\(purchased)", "0", "0", "0", "0", "0", "0", "", "", ""]
        }
        return [
            ReportTable(
                name: "conversion_funnel", columns: columns,
                rows: [
                    row("2026-10-01", 18, 6), row("2026-10-02", 4, 2), row("2026-10-04", 8, 1),
                    row("2026-10-05", 1, 0), row("2026-10-06", 0, 0),
                ])
        ]
    }

    static let context = HTMLReport.Context(
        period: "2026-10-01 to 2026-10-07", timezone: "UTC", version: "0", firstDay: "2026-10-01",
        lastDay: "2026-10-07")

    /// The conversion chart's SVG (the second daily chart of the placement).
    static func conversionChart(_ html: String) -> String {
        let charts = html.components(separatedBy: "<svg class=\"chart daily\"").dropFirst()
        guard let chart = charts.first(where: { $0.contains("Purchases per impression per day") }) else { return "" }
        return String(chart[..<(chart.range(of: "</svg>")?.lowerBound ?? chart.endIndex)])
    }

    static func circles(_ svg: String) -> [(x: Double, title: String)] {
        let pattern = /<circle cx="([0-9.]+)" cy="[0-9.]+" r="3" class="dot s0"><title>([^<]*)<\/title><\/circle>/
        return svg.matches(of: pattern).map { (Double($0.1) ?? -1, String($0.2)) }
    }

    @Test func aDayWithoutDataIsAGapOnTheCalendarAxisNotAStep() {
        let html = HTMLReport.render(tables: Self.tables(), context: Self.context)
        let chart = Self.conversionChart(html)
        let points = Self.circles(chart)
        // Four days with impressions → four points; 10-03 (no row) and 10-06 (no impression) have none
        #expect(points.map { String($0.title.prefix(10)) } == ["2026-10-01", "2026-10-02", "2026-10-04", "2026-10-05"])
        // Calendar spacing: 10-02 → 10-04 is twice 10-01 → 10-02, and the axis runs to 10-07
        let step = points[1].x - points[0].x
        #expect(step > 0 && abs(points[2].x - points[1].x - 2 * step) < 0.2)
        #expect(chart.contains(">2026-10-07</text>"))
        // Two unbroken lines (10-01–10-02 and 10-04–10-05), each with its own band: the gap breaks both
        #expect(chart.components(separatedBy: "class=\"series s0\"").count == 3)
        #expect(chart.components(separatedBy: "class=\"band s0\"").count == 3)
        let lines = chart.matches(of: /<path d="([^"]*)" class="series s0"\/>/).map { String($0.1) }
        #expect(lines.allSatisfy { $0.components(separatedBy: "L").count == 2 }, "each line joins two days only")
    }

    @Test func everyConversionPointIsTitledWithItsCountsAndWilsonInterval() throws {
        let html = HTMLReport.render(tables: Self.tables(), context: Self.context)
        let titles = Self.circles(Self.conversionChart(html)).map(\.title)
        // Wilson 95 % of 6 of 18 is 16.28 %–56.25 %, of 1 of 8 2.24 %–47.09 %, of 0 of 1 0 %–79.35 %
        // (by the formula in Python's statistics.NormalDist, see daily_titles_check.py)
        #expect(titles[0] == "2026-10-01: 33.3% (6 of 18; 95% 16.3\u{2013}56.3%)")
        #expect(titles[2] == "2026-10-04: 12.5% (1 of 8; 95% 2.2\u{2013}47.1%)")
        #expect(titles[3] == "2026-10-05: 0.0% (0 of 1; 95% 0.0\u{2013}79.3%)")
        // And the page's every title agrees with the independent computation
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let page = folder.path("report.html")
        try html.write(toFile: page, atomically: true, encoding: .utf8)
        let (status, output, errors) = try runPython("daily_titles_check.py", [page])
        #expect(status == 0, "daily_titles_check.py: \(output)\(errors)")
        #expect(output.contains("\"checked\": 4"), "\(output)")
    }

    @Test func theWilsonCheckerRefusesAWrongInterval() throws {
        // The checker can fail: a title whose upper bound is off by 0.2 points is reported
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let page = folder.path("wrong.html")
        try "<svg><circle cx=\"1\"><title>2026-10-01: 33.3% (6 of 18; 95% 16.3\u{2013}56.5%)</title></circle></svg>"
            .write(toFile: page, atomically: true, encoding: .utf8)
        let (status, output, _) = try runPython("daily_titles_check.py", [page])
        #expect(status == 1 && output.contains("high 56.5"), "\(output)")
    }

    @Test func axesHaveTitlesAndAtLeastFourRoundTicks() {
        let html = HTMLReport.render(tables: Self.tables(), context: Self.context)
        let chart = Self.conversionChart(html)
        #expect(chart.contains(">Day</text>") && chart.contains(">Purchases per impression</text>"))
        let ticks = chart.matches(of: /class="tick ytick end">([^<]*)<\/text>/).map { String($0.1) }
        #expect(ticks.count >= 4, "\(ticks)")
        // The band reaches 85.0 % (2 of 4): ticks 0 %, 20 %, … 100 %
        #expect(ticks == ["0%", "20%", "40%", "60%", "80%", "100%"])
        for top in [0.3, 1.0, 3.0, 7.0, 9.5, 12.0, 0.0042, 0.27, 0.999, 48.0, 1234.0, 100_000.0] {
            let ticks = SVGChart.ticks(for: top)
            let step = ticks[1]
            let mantissa = step / pow(10, floor(log10(step)))
            #expect([1, 2, 2.5, 5].contains { abs($0 - mantissa) < 1e-9 }, "round step for \(top): \(step)")
            #expect(ticks.count >= 4 && ticks.count <= 7 && ticks.last! >= top, "\(top): \(ticks)")
        }
        #expect(SVGChart.ticks(for: 1, minimumStep: 1) == [0, 1, 2, 3], "counts tick by whole numbers")
    }

    @Test func calendarDaysCountEveryDayAcrossMonthsAndLeapYears() {
        #expect(
            CalendarDays.from("2024-02-27", to: "2024-03-01") == [
                "2024-02-27", "2024-02-28", "2024-02-29", "2024-03-01",
            ])
        #expect(CalendarDays.from("2025-12-31", to: "2026-01-01") == ["2025-12-31", "2026-01-01"])
        #expect(CalendarDays.from("2026-02-27", to: "2026-03-01").count == 3)
        #expect(CalendarDays.ordinal("2026-02-30") == nil && CalendarDays.ordinal("2026-1-01") == nil)
        #expect(CalendarDays.ordinal("1970-01-01") == 0 && CalendarDays.ordinal("2000-03-01") == 11_017)
        #expect(CalendarDays.from("2026-10-02", to: "2026-10-01").isEmpty)
        // Without a period the axis spans the first to the last day with data
        let html = HTMLReport.render(
            tables: Self.tables(), context: HTMLReport.Context(period: "", timezone: "UTC", version: "0"))
        #expect(!html.contains(">2026-10-07</text>") && html.contains(">2026-10-06</text>"))
    }

    @Test func oneChartComparesEveryPlacementOnOneScale() throws {
        func row(_ date: String, _ placement: String, _ impressions: Int, _ purchased: Int) -> [String] {
            [date, placement, "\(impressions)", "0", "0", "\(purchased)", "0", "0", "0", "0", "0", "0", "", "", ""]
        }
        // Given paywall converting 1 of 4 on 10-01 and settings 2 of 8 on 10-02, 1 of 2 on 10-03
        let tables = [
            ReportTable(
                name: "conversion_funnel", columns: Self.columns,
                rows: [
                    row("2026-10-01", "paywall", 4, 1), row("2026-10-02", "settings", 8, 2),
                    row("2026-10-03", "settings", 2, 1),
                ])
        ]
        let html = HTMLReport.render(tables: tables, context: Self.context)
        let section = try #require(html.components(separatedBy: "<section class=\"comparison\">").dropFirst().first)
        let chart = String(section[..<(section.range(of: "</svg>")?.lowerBound ?? section.endIndex)])
        // Then one chart holds both placements, each its own colour, named in the legend
        #expect(chart.contains("<g class=\"series-group\" aria-label=\"paywall\">"))
        #expect(chart.contains("<g class=\"series-group\" aria-label=\"settings\">"))
        #expect(section.contains("<span class=\"swatch s0\"></span><bdi>paywall</bdi>"))
        #expect(section.contains("<span class=\"swatch s1\"></span><bdi>settings</bdi>"))
        // and the same rate (25 %) sits at the same height for both: one y scale
        let points = chart.matches(of: /<circle cx="[0-9.]+" cy="([0-9.]+)" r="3" class="dot (s[01])"><title>([^<]*)</)
            .map { (String($0.2), String($0.1), String($0.3)) }
        #expect(points.count == 3)
        let paywall = try #require(points.first { $0.0 == "s0" })
        let settings = try #require(points.first { $0.0 == "s1" && $0.2.hasPrefix("2026-10-02") })
        #expect(paywall.1 == settings.1, "25 % of paywall and of settings at one height: \(points)")
        #expect(settings.2 == "2026-10-02: 25.0% (2 of 8; 95% 7.1\u{2013}59.1%)")
        // A page with one placement has no comparison
        let single = HTMLReport.render(tables: Self.tables(), context: Self.context)
        #expect(!single.contains("<section class=\"comparison\">"))
    }
}
