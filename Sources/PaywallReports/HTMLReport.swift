import Foundation

/// The self-contained HTML page of a report run: per placement a funnel chart and daily trends,
/// then the cohort heat map, the product mix, the offering comparison and the data-quality figures. No scripts,
/// no network: styles are inline and charts are SVG. Every value from event data is escaped, isolated in
/// `<bdi>` and shows its control characters (``HTMLEscaping``).
public enum HTMLReport {
    /// What the page says about the run. It holds no clock time, so a re-run on the same data writes
    /// the same bytes (the nightly job relies on that to change nothing).
    public struct Context: Sendable {
        /// The report period in words, e.g. `2026-10-01 to 2026-10-30`.
        public var period: String
        /// The time zone days are counted in.
        public var timezone: String
        /// The tool's version.
        public var version: String
        /// The cohort conversion window in words, e.g. `3d`.
        public var cohortWindow: String

        /// The first and last day of the report (ISO dates): the span of the daily charts' calendar
        /// axis. `nil`: the first and last day with data.
        public var firstDay: String?, lastDay: String?

        /// Creates a context.
        public init(
            period: String, timezone: String, version: String, cohortWindow: String = "3d", firstDay: String? = nil,
            lastDay: String? = nil
        ) {
            self.period = period
            self.firstDay = firstDay
            self.lastDay = lastDay
            self.timezone = timezone
            self.version = version
            self.cohortWindow = cohortWindow
        }
    }

    /// The page's file name inside the output folder.
    public static let fileName = "report.html"

    /// Renders the page from the report tables (raw cell text, keyed by report name).
    public static func render(tables: [ReportTable], context: Context) -> String {
        let byName = Dictionary(tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let model = HTMLReportModel(tables: byName)
        let calendar = model.calendar(first: context.firstDay, last: context.lastDay)
        var body = header(context) + headline(calendar: calendar, model: model) + qualityBanner(model)
        body += "<section><h2>Placements at a glance</h2>" + table(byName["placement_summary"]) + "</section>"
        body += placementComparison(calendar: calendar, model: model)
        for placement in model.placements { body += placementSection(placement, calendar: calendar, model: model) }
        body += cohortSection(byName["cohort_conversion"], calendar: calendar, window: context.cohortWindow)
        body += "<section><h2>Product mix</h2>" + table(byName["product_mix"]) + "</section>"
        body += revenueSection(byName["revenue"], placements: model.placements)
        body += offeringSection(byName["offering_comparison"], trends: byName[OfferingTrends.name], calendar: calendar)
        body += segmentsSection(byName["segments"])
        body +=
            "<section><h2>Data quality</h2><p class=\"note\">What was stored, refused, dropped, sent to RevenueCat by this store, forwarded by the app installs themselves, or not yet sent, per day.</p>"
        let quality = byName["data_quality"]
        body += table(quality.map { $0.selecting(Array($0.columns.prefix(ReportFile.dataQualitySQLColumns))) })
        if let quality, quality.columns.count > ReportFile.dataQualitySQLColumns {
            body += "<p class=\"note\">Subscription events RevenueCat sent, per day of their timestamp: those "
            body += "that count (production), those of subscriptions no paywall could be attributed to, and sandbox "
            body += "or test events (counted here only, never in money).</p>"
            body += table(
                quality.selecting(["date"] + Array(quality.columns.dropFirst(ReportFile.dataQualitySQLColumns))))
        }
        body += "</section>"
        body += glossary
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Paywall report — \(HTMLEscaping.escape(context.period))</title>
            <style>\(style)\(offeringStyle)\(comparisonStyle)\(cohortStyle)\(headlineStyle)</style></head>
            <body><main>
            \(body)
            <footer>PaywallAnalytics \(HTMLEscaping.escape(context.version)) · definitions of every number: funnels.md in the PaywallAnalytics repository</footer>
            </main></body></html>

            """
    }

    static func header(_ context: HTMLReport.Context) -> String {
        "<header><h1>Paywall report</h1><p class=\"period\">\(HTMLEscaping.escape(context.period)) · days in \(HTMLEscaping.escape(context.timezone))</p></header>"
    }

    static func qualityBanner(_ model: HTMLReportModel) -> String {
        let totals = model.qualityTotals
        var warnings: [String] = []
        if totals["quarantined", default: 0] > 0 {
            warnings.append(
                "\(totals["quarantined", default: 0]) events were refused (quarantined) and are not counted")
        }
        if totals["dropped", default: 0] > 0 {
            warnings.append("\(totals["dropped", default: 0]) events were dropped at the recorder's buffer bound")
        }
        if totals["suppressed", default: 0] > 0 {
            warnings.append(
                "\(totals["suppressed", default: 0]) events of forgotten customers were refused (suppressed) and are not counted"
            )
        }
        if totals["impressions_dead_lettered", default: 0] > 0 {
            warnings.append(
                "\(totals["impressions_dead_lettered", default: 0]) impressions were refused by RevenueCat (dead letters)"
            )
        }
        let stored = totals["events_stored", default: 0]
        // `impressions_delivered` counts the impressions the app installs forwarded themselves too: this
        // store never sent those, so they are named apart, never as delivered by it.
        let byDevice = totals["impressions_forwarded_by_device", default: 0]
        let delivered = max(0, totals["impressions_delivered", default: 0] - byDevice)
        let pending = totals["impressions_pending", default: 0]
        var facts = "\(stored) events stored · \(delivered) impressions delivered to RevenueCat by this store"
        if byDevice > 0 { facts += " · \(byDevice) forwarded to RevenueCat by the app installs themselves" }
        facts += " · \(pending) pending"
        if warnings.isEmpty { return "<p class=\"quality ok\">\(facts). Nothing was refused or dropped.</p>" }
        return "<div class=\"quality warn\"><p>\(facts).</p><ul>" + warnings.map { "<li>\($0)</li>" }.joined()
            + "</ul></div>"
    }

    static func placementSection(_ placement: String, calendar: [String], model: HTMLReportModel) -> String {
        let name = HTMLEscaping.data(placement)
        let funnel = model.funnel(for: placement)
        var out = "<section class=\"placement\"><h2>Placement <q>\(name)</q></h2>"
        let conversion =
            funnel.impressions == 0 ? "—" : SVGChart.percent(Double(funnel.purchased) / Double(funnel.impressions))
        out += "<div class=\"figures\">"
        out += figure("presentations", "\(funnel.presentations)") + figure("impressions", "\(funnel.impressions)")
        out += figure("purchased", "\(funnel.purchased)") + figure("purchases per impression", conversion)
        out += figure("bounces", "\(funnel.bounces)") + figure("purchase cancellations", "\(funnel.cancellations)")
        out += "</div>"
        out +=
            "<h3>Funnel (rate from the previous step)</h3>"
            + SVGChart.funnel(
                [
                    .init(label: "Presentations", value: funnel.presentations),
                    .init(label: "Impressions", value: funnel.impressions),
                    .init(label: "Plan selected", value: funnel.planSelected),
                    .init(label: "Purchase started", value: funnel.purchaseStarted),
                    .init(label: "Purchased", value: funnel.purchased),
                ], title: "Funnel of \(placement)")
        out += trends(placement, calendar: calendar, model: model)
        return out + "</section>"
    }

    static func figure(_ label: String, _ value: String) -> String {
        "<div class=\"figure\"><span class=\"number\">\(HTMLEscaping.escape(value))</span><span class=\"caption\">\(label)</span></div>"
    }

    /// A table of a report; rates and shares are shown as percentages, counts as they are.
    /// At most ``tableRowLimit`` rows (``shown(_:)``); column names may wrap after an underscore.
    static func table(_ full: ReportTable?) -> String {
        let (table, note) = shown(full)
        guard let table, !table.rows.isEmpty else { return "<p class=\"empty\">No rows in this range.</p>" }
        var out = note + "<div class=\"scroll\"><table><thead><tr>"
        out +=
            table.columns.map { column in
                let meaning = columnMeanings[table.name]?[column] ?? columnMeanings[""]?[column]
                let note = meaning.map { "<br><span class=\"per\">\(HTMLEscaping.escape($0))</span>" } ?? ""
                let name = HTMLEscaping.escape(column).replacingOccurrences(of: "_", with: "_<wbr>")
                return "<th>\(name)\(note)</th>"
            }.joined() + "</tr></thead><tbody>"
        for row in table.rows {
            out +=
                "<tr>"
                + zip(table.columns, row).map { column, cell in
                    // Numbers are ours; any other cell may be data (a placement, a product): isolated, controls shown.
                    if Double(cell) != nil {
                        return "<td class=\"num\">\(HTMLEscaping.escape(displayed(cell, column: column)))</td>"
                    }
                    return "<td>\(HTMLEscaping.data(displayed(cell, column: column)))</td>"
                }.joined() + "</tr>"
        }
        return out + "</tbody></table></div>"
    }

    /// What each rate divides by, and which side delivered what, shown under the column's name, so
    /// two rates (per impression, per customer) are never read as one. By report name (`""`: any report).
    static let columnMeanings: [String: [String: String]] = [
        "": [
            "impression_rate": "impressions per presentation",
            "conversion_rate": "purchases per impression",
            "conversion_rate_3d": "of customers",
            "share": "of the placement's purchases",
        ],
        "offering_comparison": [
            "conversion_rate": "of customers who saw it",
            "ci_low": "of customers, 95 % interval",
            "ci_high": "of customers, 95 % interval",
            "lift": "relative to the control",
            "revenue_per_customer": "US dollars, of customers who saw it",
            "rpc_ci_low": "95 % interval", "rpc_ci_high": "95 % interval",
            "diff": "conversion minus the control's",
            "seq_ci_low": "always-valid 95 % interval", "seq_ci_high": "always-valid 95 % interval",
            "srm_p_value": "below 0.001: the split is broken",
        ],
        "revenue": [
            "revenue_usd": "US dollars, refunds subtracted", "proceeds_usd": "US dollars, after store fees and tax",
            "revenue_per_impression": "US dollars",
            "trial_conversion_rate": "of trials that ended",
        ],
        "data_quality": [
            "impressions_delivered": "sent by this store, or forwarded by the app installs",
            "impressions_forwarded_by_device": "forwarded by the app installs, never sent by this store",
        ],
    ]

    /// Rates and shares (4-decimal fractions in the CSV) as percentages with 2 decimals.
    static func displayed(_ cell: String, column: String) -> String {
        guard column.hasSuffix("_rate") || column.hasSuffix("rate_3d") || column == "share", let value = Double(cell)
        else { return cell }
        return FixedPoint.string(value * 100, decimals: 2) + "%"
    }
}
