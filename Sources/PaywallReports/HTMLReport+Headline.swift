import Foundation

/// The headline at the top of the page: per placement, how the last 7 days compare with the 7
/// before (``WeekOverWeek``), each change said in words with its p-value, or that the report is too
/// short to say.
extension HTMLReport {
    /// The section.
    static func headline(calendar: [String], model: HTMLReportModel) -> String {
        var out = "<section class=\"headline\"><h2>What changed this week</h2>"
        guard let weeks = WeekOverWeek(calendar: calendar, model: model) else {
            return out
                + "<p class=\"note\">Not enough data for a week-over-week comparison: this report covers \(calendar.count) day\(calendar.count == 1 ? "" : "s"), and comparing the last 7 days with the 7 before needs 14. Run the report over at least 14 days to see it.</p></section>"
        }
        guard !weeks.changes.isEmpty else { return out + "<p class=\"empty\">No placement had data.</p></section>" }
        out +=
            "<p class=\"note\">The last 7 days (\(weeks.last.first) to \(weeks.last.last)) against the 7 before (\(weeks.previous.first) to \(weeks.previous.last)). A change is called likely real when a test gives p &lt; 0.05 (purchases per impression: two-proportion test; impressions: the two counts compared as Poisson counts); with many placements, about one unchanged figure in twenty still passes by chance.</p><ul>"
        for change in weeks.changes { out += "<li>" + headlineItem(change) + "</li>" }
        return out + "</ul></section>"
    }

    /// One placement's sentence.
    static func headlineItem(_ change: WeekOverWeek.Change) -> String {
        var out = "<q>\(HTMLEscaping.data(change.placement))</q>: "
        let (before, after) = change.impressions
        out += "impressions \(before) → \(after)"
        if before == after {
            out += before == 0 ? " (none in either week)" : " (no change)"
        } else {
            if before > 0 {
                let relative = Double(after) / Double(before) - 1
                out += " (\(relative >= 0 ? "+" : "")\(SVGChart.percent(relative)))"
            }
            if let p = change.impressionsP { out += ", " + emphasized(WeekOverWeek.verdict(p), p) }
        }
        out += "; purchases per impression "
        let rates = change.rates
        guard let previous = rates.previous, let last = rates.last else {
            return out + "cannot be compared (a week without impressions)."
        }
        out +=
            "\(SVGChart.percent(previous)) (\(change.purchased.previous) of \(before)) → \(SVGChart.percent(last)) (\(change.purchased.last) of \(after))"
        let points = (last - previous) * 100
        guard let p = change.conversionP else { return out + " (no change)." }
        out += " (\(points >= 0 ? "+" : "−")\(FixedPoint.string(abs(points), decimals: 1)) points), "
        return out + emphasized(WeekOverWeek.verdict(p), p) + "."
    }

    static func emphasized(_ text: String, _ p: Double) -> String {
        p < 0.05 ? "<strong class=\"real\">\(HTMLEscaping.escape(text))</strong>" : HTMLEscaping.escape(text)
    }

    /// The headline's styles (appended to the page's).
    static let headlineStyle = """
        .headline ul{margin:4px 0 0;padding-left:20px}.headline li{margin:2px 0}.headline .real{color:#1f7a45}
        """
}
