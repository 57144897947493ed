import Foundation
import PaywallCore
import Testing

@testable import PaywallReports

/// The page's offering comparison: a chart per placement with more than one offering, the control
/// marked, lift and p-value per row, and the verdict in words.
struct HTMLOfferingsTests {
    static let hostile = "<img src=x onerror=alert(1)>"
    static let columns = [
        "placement", "offering", "customers", "impressions", "converted", "conversion_rate", "ci_low",
        "ci_high", "is_control", "lift", "p_value",
    ]
    static let table = ReportTable(
        name: "offering_comparison", columns: columns,
        rows: [
            ["onboarding", "classic", "2532", "2532", "459", "0.1813", "0.1668", "0.1968", "true", "", ""],
            ["onboarding", "trial", "1731", "1731", "448", "0.2588", "0.2387", "0.2800", "false", "0.4277", "0.0000"],
            ["settings", hostile, "605", "738", "74", "0.1223", "0.0986", "0.1508", "true", "", ""],
            ["settings", "", "566", "677", "77", "0.1360", "0.1102", "0.1668", "false", "0.1122", "0.4836"],
            ["winback", "default", "651", "734", "71", "0.1091", "0.0874", "0.1353", "true", "", ""],
        ])

    @Test func eachComparedPlacementGetsAChartAndAVerdict() {
        let html = HTMLReport.render(tables: [Self.table], context: HTMLReportTests.context)
        // Two placements have more than one offering: two charts, one bar and one whisker set per offering
        #expect(html.components(separatedBy: "class=\"chart offering-chart\"").count == 3)
        #expect(html.components(separatedBy: "class=\"whisker\"").count == 1 + 4 * 3)
        #expect(html.contains("classic (control)</text>"))
        #expect(html.contains("lift +42.8% · p &lt; 0.0001"))
        #expect(html.contains("lift +11.2% · p = 0.4836"))
        // onboarding has a winner, settings has none, winback has nothing to compare
        #expect(
            html.contains("<q><bdi>trial</bdi></q> converts better</strong> than the control <q><bdi>classic</bdi></q>")
        )
        #expect(
            html.contains(
                "<strong>No winner yet:</strong> no offering differs from the control <q>\(HTMLEscaping.data(Self.hostile))</q>"
            ))
        #expect(html.contains("One offering only (nothing to compare): <q><bdi>winback</bdi></q>."))
        // An empty offering is named, and event data stays text
        #expect(html.contains(">(none)</text>"))
        #expect(!html.contains(Self.hostile))
    }

    @Test func aWorseOfferingIsCalledWorseAndNoComparisonSaysSo() {
        var rows = Self.table.rows
        rows[1] = [
            "onboarding", "trial", "1731", "1731", "200", "0.1155", "0.1012", "0.1316", "false", "-0.3629", "0.0000",
        ]
        let worse = HTMLReport.render(
            tables: [ReportTable(name: "offering_comparison", columns: Self.columns, rows: rows)],
            context: HTMLReportTests.context)
        #expect(worse.contains("<q><bdi>trial</bdi></q> converts worse</strong>"))
        let single = ReportTable(name: "offering_comparison", columns: Self.columns, rows: [Self.table.rows[4]])
        let none = HTMLReport.render(tables: [single], context: HTMLReportTests.context)
        #expect(none.contains("No placement showed more than one offering in this range."))
        #expect(!none.contains("class=\"chart offering-chart\""))
    }
}
