import Foundation

/// The page's chart of every placement's purchases per impression per day on one calendar axis and
/// one y scale, so placements can be compared by eye (each placement's own charts scale to
/// themselves). Lines only, no bands: the intervals are on each placement's own chart.
extension HTMLReport {
    /// The section, or "" when fewer than two placements have data.
    static func placementComparison(calendar: [String], model: HTMLReportModel) -> String {
        let placements = model.placements
        guard placements.count > 1, !calendar.isEmpty else { return "" }
        var series: [SVGChart.DailySeries] = []
        for placement in placements {
            var line = conversionSeries(calendar, model.dailyByDate(for: placement))
            line.band = nil
            line.name = placement
            series.append(line)
        }
        var out = "<section class=\"comparison\"><h2>Purchases per impression per day, every placement</h2>"
        out +=
            "<p class=\"note\">All placements on one scale. Hover a point for its counts and 95 % interval; each placement's own chart below shades the interval.</p>"
        out += "<ul class=\"legend\">"
        for (number, placement) in placements.enumerated() {
            out += "<li><span class=\"swatch s\(number % 8)\"></span>\(HTMLEscaping.data(placement))</li>"
        }
        out += "</ul>"
        out += SVGChart.daily(
            days: calendar, series: series, title: "Purchases per impression per day, every placement",
            xTitle: "Day", yTitle: "Purchases per impression", percent: true)
        return out + "</section>"
    }

    /// The comparison's styles (appended to the page's).
    static let comparisonStyle = """
        .legend{list-style:none;display:flex;flex-wrap:wrap;gap:4px 16px;margin:0 0 8px;padding:0;font-size:13px}
        .swatch{display:inline-block;width:14px;height:4px;margin:0 6px 3px 0;vertical-align:middle;background:var(--c,var(--accent))}
        """
}
