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
        "ci_high", "is_control", "lift", "p_value", "paid_starts", "trial_starts", "revenue_usd",
        "revenue_per_customer", "rpc_ci_low", "rpc_ci_high", "revenue_p_value", "diff", "seq_ci_low", "seq_ci_high",
        "seq_p_value", "srm_p_value",
    ]
    static let control = ["", "", "", "", "", ""]
    static let table = ReportTable(
        name: "offering_comparison", columns: columns,
        rows: [
            ["onboarding", "classic", "2532", "2532", "459", "0.1813", "0.1668", "0.1968", "true", "", ""]
                + ["459", "0", "4580.41", "1.8090", "1.6500", "1.9680", ""] + control,
            ["onboarding", "trial", "1731", "1731", "448", "0.2588", "0.2387", "0.2800", "false", "0.4277", "0.0000"]
                + [
                    "12", "448", "2390.00", "1.3807", "1.2000", "1.5614", "0.0012", "0.0775", "0.0412", "0.1138",
                    "0.0000",
                ]
                + ["0.4010"],
            ["settings", hostile, "605", "738", "74", "0.1223", "0.0986", "0.1508", "true", "", ""]
                + ["74", "0", "500.00", "0.8264", "0.6000", "1.0528", ""] + control,
            ["settings", "", "566", "677", "77", "0.1360", "0.1102", "0.1668", "false", "0.1122", "0.4836"]
                + [
                    "77", "0", "520.00", "0.9187", "0.7000", "1.1374", "0.5500", "0.0137", "-0.0399", "0.0673",
                    "1.0000",
                ]
                + ["0.3000"],
            ["winback", "default", "651", "734", "71", "0.1091", "0.0874", "0.1353", "true", "", ""]
                + ["71", "0", "400.00", "0.6144", "0.5000", "0.7288", ""] + control,
        ])

    @Test func eachComparedPlacementGetsAChartAndAVerdict() {
        let html = HTMLReport.render(tables: [Self.table], context: HTMLReportTests.context)
        // Two placements have more than one offering: two charts, one bar and one whisker set per offering
        #expect(html.components(separatedBy: "class=\"chart offering-chart\"").count == 3)
        #expect(html.components(separatedBy: "class=\"whisker\"").count == 1 + 4 * 3)
        #expect(html.contains("classic (control)</text>"))
        #expect(html.contains("lift +42.8% · p &lt; 0.0001"))
        #expect(html.contains("lift +11.2% · p = 0.4836"))
        // onboarding has a winner (its always-valid interval excludes zero), settings is not decided
        // (its interval includes zero, though nothing else says so), winback has nothing to compare
        #expect(
            html.contains(
                "<strong>Winner: <q><bdi>trial</bdi></q> converts better</strong> than the control <q><bdi>classic</bdi></q>"
            ))
        #expect(html.contains("[+4.1, +11.4] percentage points, excludes zero"))
        #expect(
            html.contains(
                "<strong>Not decided yet:</strong> <q><bdi>(none)</bdi></q> against the control <q>\(HTMLEscaping.data(Self.hostile))</q>"
            ))
        #expect(html.components(separatedBy: "Winner").count == 2, "the word only where the interval excludes zero")
        // and beside each verdict what the money says: trial converts better but earns less (Welch p = 0.0012),
        // said plainly; "(none)" earns about the same as its control (p = 0.55)
        #expect(
            html.contains(
                "<strong>By money, <q><bdi>trial</bdi></q> earns less per customer</strong> than the control: "
                    + "$1.3807 [$1.20, $1.56] per customer against $1.8090 [$1.65, $1.97] (Welch test p = 0.0012"))
        #expect(
            html.contains("It converts better but earns less: if revenue is what you choose by, the control is ahead."))
        #expect(
            html.contains(
                "<strong>By money, no difference shown:</strong> <q><bdi>(none)</bdi></q> earned $0.9187 [$0.70, $1.14] "
                    + "per customer against $0.8264 [$0.60, $1.05] for the control (Welch test p = 0.5500)."))
        #expect(!html.contains("winner"))
        // conversion and revenue per customer side by side with their intervals; no sample-ratio warning
        #expect(html.contains("<td class=\"n\">25.9% [23.9%, 28.0%]</td><td class=\"n\">$1.3807 [$1.20, $1.56]</td>"))
        #expect(!html.contains("split of customers is broken"))
        #expect(html.contains("One offering only (nothing to compare): <q><bdi>winback</bdi></q>."))
        // An empty offering is named, and event data stays text
        #expect(html.contains(">(none)</text>"))
        #expect(!html.contains(Self.hostile))
    }

    @Test func aWorseOfferingIsCalledWorseAndNoComparisonSaysSo() {
        var rows = Self.table.rows
        rows[1] =
            ["onboarding", "trial", "1731", "1731", "200", "0.1155", "0.1012", "0.1316", "false", "-0.3629", "0.0000"]
            + ["12", "448", "2390.00", "1.3807", "1.2000", "1.5614", "0.0012", "-0.0658", "-0.1004", "-0.0312"]
            + ["0.0000", "0.0004"]
        rows[0][22] = "0.0004"
        let worse = HTMLReport.render(
            tables: [ReportTable(name: "offering_comparison", columns: Self.columns, rows: rows)],
            context: HTMLReportTests.context)
        #expect(worse.contains("<strong>Loser: <q><bdi>trial</bdi></q> converts worse</strong>"))
        // the sample ratio is broken (below 0.001): said in words, once for the placement
        #expect(
            worse.components(separatedBy: "<strong>The split of customers is broken:</strong>").count == 2
                && worse.contains("sample-ratio check p = 0.0004"))
        let single = ReportTable(name: "offering_comparison", columns: Self.columns, rows: [Self.table.rows[4]])
        let none = HTMLReport.render(tables: [single], context: HTMLReportTests.context)
        #expect(none.contains("No placement showed more than one offering in this range."))
        #expect(!none.contains("class=\"chart offering-chart\""))
    }

    @Test func revenuePerPlacementSumsTheDaysExactly() {
        let revenue = ReportTable(
            name: "revenue", columns: ReportFile.revenue.columns,
            rows: [
                ["2026-10-01", "onboarding", "100", "2", "3", "1", "1", "0.5000", "1", "10.10", "8.59", "0.1010"],
                ["2026-10-02", "onboarding", "50", "1", "0", "0", "0", "", "0", "-0.05", "-0.04", "-0.0010"],
            ])
        let html = HTMLReport.render(tables: [revenue], context: HTMLReportTests.context)
        // 150 impressions, 3 paid and 3 trial starts, 1 of 2 ended trials converted, $10.05 / 150 = $0.0670
        let cells = [
            "<td><bdi>onboarding</bdi></td>", "<td class=\"num\">150</td>", "<td class=\"num\">3</td>",
            "<td class=\"num\">3</td>",
            "<td class=\"num\">1</td>", "<td class=\"num\">1</td>", "<td class=\"num\">50.00%</td>",
            "<td class=\"num\">1</td>", "<td class=\"num\">10.05</td>", "<td class=\"num\">8.55</td>",
            "<td class=\"num\">0.0670</td>",
        ]
        #expect(html.contains("<h2>Revenue per placement</h2>") && html.contains("<tr>" + cells.joined() + "</tr>"))
        #expect(HTMLReport.cents("-0.05") == -5 && HTMLReport.cents("12.3") == 1230 && HTMLReport.cents("") == 0)
    }
}
