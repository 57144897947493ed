import Foundation
import PaywallCore
import PaywallReports
import PaywallSimulation
import Testing

struct HTMLReportTests {
    static let hostile = "<script>alert(1)</script>"
    static let tables: [ReportTable] = [
        ReportTable(
            name: "encounter_funnel",
            columns: [
                "date", "placement", "presentations", "impressions", "dwell_bounces", "unique_viewers",
                "impression_rate",
            ],
            rows: [
                ["2026-10-01", hostile, "10", "8", "2", "7", "0.8000"],
                ["2026-10-01", "onboarding", "20", "18", "2", "18", "0.9000"],
                ["2026-10-02", "onboarding", "5", "4", "1", "4", "0.8000"],
            ]),
        ReportTable(
            name: "conversion_funnel",
            columns: [
                "date", "placement", "impressions", "plan_selected", "purchase_started", "purchased", "restored",
                "dismissed_close_button", "dismissed_continue_free", "unclosed", "bounces",
                "purchase_cancellations", "conversion_rate", "open_s_p50", "open_s_p90",
            ],
            rows: [
                ["2026-10-01", hostile, "8", "4", "2", "1", "0", "6", "0", "1", "5", "1", "0.1250", "3.000", "9.500"],
                [
                    "2026-10-01", "onboarding", "18", "12", "9", "6", "1", "2", "9", "0", "10", "3", "0.3333", "12.000",
                    "30.000",
                ],
                [
                    "2026-10-02", "onboarding", "4", "3", "2", "2", "0", "1", "1", "0", "2", "0", "0.5000", "10.000",
                    "20.000",
                ],
            ]),
        ReportTable(
            name: "placement_summary",
            columns: [
                "placement", "presentations", "impressions", "unique_viewers", "purchased", "restored",
                "conversion_rate", "open_s_p50", "open_s_p90",
            ],
            rows: [
                [hostile, "10", "8", "7", "1", "0", "0.1250", "3.000", "9.500"],
                ["onboarding", "25", "22", "21", "8", "1", "0.3636", "11.000", "30.000"],
            ]),
        ReportTable(
            name: "data_quality",
            columns: [
                "date", "events_stored", "quarantined", "dropped", "impressions_stored",
                "impressions_delivered", "impressions_pending", "impressions_dead_lettered",
                "impressions_forwarded_by_device",
            ],
            rows: [["2026-10-01", "120", "3", "0", "26", "20", "6", "0", "0"]]),
    ]
    static let context = HTMLReport.Context(period: "2026-10-01 to 2026-10-02", timezone: "UTC", version: "0.1.0")

    @Test func valuesFromEventDataAreEscapedAndNoScriptIsEmitted() {
        let html = HTMLReport.render(tables: Self.tables, context: Self.context)
        #expect(!html.lowercased().contains("<script"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("http://") && !html.contains("https://"), "self-contained: no network references")
        #expect(HTMLEscaping.escape(#"a&b"c'd<e>"#) == "a&amp;b&quot;c&#39;d&lt;e&gt;")
    }

    /// The escaping as first written, scalar by scalar: the reference the byte-level escaping must equal.
    static func referenceEscape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    @Test func escapingByBytesEqualsEscapingScalarByScalar() {
        // Random text of markup characters, ASCII, hidden characters, accents (precomposed and
        // combining), right-to-left and four-byte characters
        let pieces = [
            "&", "<", ">", "\"", "'", "a", " ", "Z", "\u{7F}", "\t", "\0", "\u{202E}", "\u{200B}", "é", "e\u{301}",
            "ש", "😀", "\u{1F1E9}\u{1F1EA}", "¬", "€",
        ]
        var generator = SeededGenerator(seed: 28)
        for length in [0, 1, 2, 5, 40, 300] {
            for _ in 0..<60 {
                let text = (0..<length).map { _ in pieces.randomElement(using: &generator)! }.joined()
                #expect(HTMLEscaping.escape(text) == Self.referenceEscape(text), "\(Array(text.unicodeScalars))")
                // and text without hidden characters is only escaped in attributes and data
                if !text.unicodeScalars.contains(where: HTMLEscaping.isHidden) {
                    #expect(HTMLEscaping.attribute(text) == Self.referenceEscape(text))
                    #expect(HTMLEscaping.data(text) == "<bdi>" + Self.referenceEscape(text) + "</bdi>")
                }
            }
        }
        #expect(HTMLEscaping.attribute("a\u{7F}b\tc") == "a[U+007F]b[U+0009]c")
    }

    @Test func eachPlacementGetsAFunnelAndTrendsSummedOverTheRange() {
        let html = HTMLReport.render(tables: Self.tables, context: Self.context)
        #expect(html.components(separatedBy: "<section class=\"placement\">").count == 3)
        // onboarding: presentations 20 + 5, impressions 18 + 4, purchased 6 + 2
        #expect(html.contains(">25</span><span class=\"caption\">presentations"))
        #expect(html.contains(">22</span><span class=\"caption\">impressions"))
        #expect(html.contains(">8</span><span class=\"caption\">purchased"))
        #expect(html.contains("36.4%</span><span class=\"caption\">purchases per impression"))
        #expect(html.contains("Impressions per day at onboarding"))
        #expect(html.contains(">36.36%</td>"), "rates are shown as percentages")
    }

    @Test func theQualityBannerSaysWhatWasLost() {
        let html = HTMLReport.render(tables: Self.tables, context: Self.context)
        #expect(html.contains("3 events were refused (quarantined)"))
        let clean = HTMLReport.render(tables: Self.tables.filter { $0.name != "data_quality" }, context: Self.context)
        #expect(clean.contains("Nothing was refused or dropped"))
    }

    @Test func everyRateSaysWhatItDividesBy() {
        let html = HTMLReport.render(tables: Self.tables, context: Self.context)
        // The placement tables divide by impressions; the glossary tells that from "of customers"
        #expect(html.contains("<th>conversion_<wbr>rate<br><span class=\"per\">purchases per impression</span></th>"))
        #expect(html.contains("Purchases per impression, per day"))
        #expect(html.contains("<dt>Of customers</dt>"))
        #expect(!html.contains(">conversion<") && !html.contains("Conversion rate per day"))
        let offerings = ReportTable(
            name: "offering_comparison", columns: ["placement", "offering", "conversion_rate"],
            rows: [["p", "o", "0.5"]])
        let cohorts = ReportTable(
            name: "cohort_conversion",
            columns: [
                "cohort_date", "placement", "customers", "converted_3d", "conversion_rate_3d", "window_complete",
            ],
            rows: [["2026-10-01", "p", "2", "1", "0.5000", "false"]])
        let page = HTMLReport.render(tables: [offerings, cohorts], context: Self.context)
        #expect(page.contains("<th>conversion_<wbr>rate<br><span class=\"per\">of customers who saw it</span></th>"))
        #expect(
            page.contains("2026-10-01 · p: 50.0% (1 of 2 customers; window still open)"),
            "the cohort cell says of customers")
    }

    @Test func impressionsTheInstallsForwardedAreNeverCalledDeliveredByThisStore() {
        // Given a day where 20 impressions are in RevenueCat's hands, 15 of them forwarded by the installs
        var tables = Self.tables.filter { $0.name != "data_quality" }
        tables.append(
            ReportTable(
                name: "data_quality",
                columns: [
                    "date", "events_stored", "quarantined", "dropped", "impressions_stored", "impressions_delivered",
                    "impressions_pending", "impressions_dead_lettered", "impressions_forwarded_by_device",
                ],
                rows: [["2026-10-01", "120", "0", "0", "26", "20", "6", "0", "15"]]))
        let html = HTMLReport.render(tables: tables, context: Self.context)
        // Then the banner counts 5 as delivered by this store and 15 as forwarded by the installs
        #expect(html.contains("5 impressions delivered to RevenueCat by this store"), "\(html)")
        #expect(html.contains("15 forwarded to RevenueCat by the app installs themselves"))
        #expect(!html.contains("20 impressions delivered"))
        #expect(html.contains("forwarded by the app installs, never sent by this store"))
    }

    @Test func anEmptyReportRendersWithoutCharts() {
        let html = HTMLReport.render(tables: [], context: Self.context)
        #expect(html.contains("No rows in this range."))
        #expect(!html.contains("<section class=\"placement\">"))
    }
}
