import Foundation

/// The page's revenue per placement (`revenue.csv` summed over the range): starts, trials,
/// refunds and the money RevenueCat reported for the subscriptions attributed to each placement.
extension HTMLReport {
    /// The section, or "" when `revenue.csv` is not among the tables.
    static func revenueSection(_ table: ReportTable?, placements: [String]) -> String {
        guard let table else { return "" }
        struct Sums {
            var impressions: Int64 = 0, paid: Int64 = 0, trials: Int64 = 0, conversions: Int64 = 0, pending: Int64 = 0
            var refunds: Int64 = 0, revenueCents: Int64 = 0, proceedsCents: Int64 = 0
        }
        var sums: [String: Sums] = [:]
        for record in table.records {
            let placement = record["placement"] ?? ""
            var sum = sums[placement, default: Sums()]
            func int(_ column: String) -> Int64 { Int64(record[column] ?? "") ?? 0 }
            sum.impressions += int("impressions")
            sum.paid += int("paid_starts")
            sum.trials += int("trial_starts")
            sum.conversions += int("trial_conversions")
            sum.pending += int("trials_pending")
            sum.refunds += int("refunds")
            sum.revenueCents += cents(record["revenue_usd"])
            sum.proceedsCents += cents(record["proceeds_usd"])
            sums[placement] = sum
        }
        var rows: [[String]] = []
        for placement in placements.filter({ sums[$0] != nil })
            + sums.keys.filter({ !placements.contains($0) }).sorted()
        {
            let s = sums[placement]!
            let decided = s.trials - s.pending
            rows.append([
                placement, String(s.impressions), String(s.paid), String(s.trials), String(s.conversions),
                String(s.pending), decided > 0 ? ReportFormat.rate(Double(s.conversions) / Double(decided)) : "",
                String(s.refunds), ReportMoney.format(micros: s.revenueCents * 10_000, places: 2),
                ReportMoney.format(micros: s.proceedsCents * 10_000, places: 2),
                s.impressions > 0
                    ? ReportMoney.format(micros: s.revenueCents * 10_000, per: s.impressions, places: 4) : "",
            ])
        }
        var out = "<section class=\"revenue\"><h2>Revenue per placement</h2><p class=\"note\">The subscriptions "
        out += "RevenueCat reported, each attributed to the last paywall its buyer saw in the 72 hours before buying: "
        out += "paid and trial starts, trials converted (pending trials are left out of the rate until they end), "
        out += "refunds, and revenue and proceeds in US dollars (refunds subtracted). Sandbox and test events are "
        out += "not money; data quality counts them.</p>"
        let summary = ReportTable(
            name: "revenue",
            columns: [
                "placement", "impressions", "paid_starts", "trial_starts", "trial_conversions", "trials_pending",
                "trial_conversion_rate", "refunds", "revenue_usd", "proceeds_usd", "revenue_per_impression",
            ], rows: rows)
        return out + HTMLReport.table(summary) + "</section>"
    }

    /// A 2-decimal dollar amount as written in the CSV ("12.34", "-0.50") in cents, exactly.
    static func cents(_ text: String?) -> Int64 {
        guard let text, !text.isEmpty else { return 0 }
        let negative = text.hasPrefix("-")
        let parts = text.drop { $0 == "-" }.split(separator: ".", omittingEmptySubsequences: false)
        let whole = Int64(parts.first ?? "") ?? 0
        let fraction =
            parts.count > 1
            ? Int64(String(parts[1].prefix(2)).padding(toLength: 2, withPad: "0", startingAt: 0)) ?? 0 : 0
        return (negative ? -1 : 1) * (whole * 100 + fraction)
    }
}
