import Foundation
import PaywallCore

/// The page's cohort section as a heat map (`cohort_conversion.csv`): a row per placement, a column
/// per calendar day of first impression, each cell shaded by the share of that day's new customers
/// who bought within the window. One picture instead of a table of placements × days; each cell's
/// `<title>` gives its counts, and the CSV keeps every row.
extension HTMLReport {
    /// One cell of the heat map.
    struct CohortCell {
        var customers: Int
        var converted: Int
        var complete: Bool
        var rate: Double { customers == 0 ? 0 : Double(converted) / Double(customers) }
    }

    /// The section.
    static func cohortSection(_ table: ReportTable?, calendar: [String], window: String) -> String {
        var out =
            "<section class=\"cohorts\"><h2>Cohort conversion (window \(HTMLEscaping.escape(window)) after the first impression)</h2>"
        out +=
            "<p class=\"note\">Customers by the day of their first impression at a placement (columns), and the share of them who bought within the window: the darker, the more of them. Hover a cell for its counts. Cells with a dashed outline are days whose window is not complete yet (they can still grow); blank cells had no new customer. Every row is in cohort_conversion.csv.</p>"
        var cells: [ExactText: [String: CohortCell]] = [:]
        var placements: [String] = []
        var seen = Set<ExactText>()
        var dates: [String] = []
        for record in table?.records ?? [] {
            guard let date = record["cohort_date"], CalendarDays.ordinal(date) != nil else { continue }
            let placement = record["placement"] ?? ""
            if seen.insert(ExactText(placement)).inserted { placements.append(placement) }
            dates.append(date)
            let cell = CohortCell(
                customers: Int(record["customers"] ?? "") ?? 0, converted: Int(record["converted_3d"] ?? "") ?? 0,
                complete: record["window_complete"] != "false")
            cells[ExactText(placement), default: [:]][date] = cell
        }
        guard !placements.isEmpty, let low = dates.min(), let high = dates.max() else {
            return out + "<p class=\"empty\">No rows in this range.</p></section>"
        }
        placements.sort { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
        // The report's calendar when it holds every cohort day, else the cohort days' own span
        let days = calendar.contains(low) && calendar.contains(high) ? calendar : CalendarDays.from(low, to: high)
        return out + heatMap(placements: placements, days: days, cells: cells) + "</section>"
    }

    /// The SVG grid: placements down, days across, shaded from white (0 %) to the page's accent (the
    /// highest rate among the cells), with a scale underneath.
    static func heatMap(placements: [String], days: [String], cells: [ExactText: [String: CohortCell]]) -> String {
        let width = 960.0
        let labelWidth = 170.0
        let rowHeight = 28.0
        let top = 4.0
        let cellWidth = (width - labelWidth - 8) / Double(days.count)
        let highest = max(cells.values.flatMap(\.values).map(\.rate).max() ?? 0, 0.01)
        let gridBottom = top + rowHeight * Double(placements.count)
        let height = gridBottom + 66
        var svg = """
            <svg class="chart heatmap" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="Cohort conversion by placement and day" preserveAspectRatio="xMinYMin meet">
            """
        for (row, placement) in placements.enumerated() {
            let y = top + rowHeight * Double(row)
            let shown = placement.count > 22 ? String(placement.prefix(21)) + "…" : placement
            svg +=
                "<text x=\"\(SVGChart.fmt(labelWidth - 8))\" y=\"\(SVGChart.fmt(y + 18))\" class=\"label end\">\(HTMLEscaping.attribute(shown))<title>\(HTMLEscaping.attribute(placement))</title></text>"
            for (column, date) in days.enumerated() {
                guard let cell = cells[ExactText(placement)]?[date] else { continue }
                let x = labelWidth + cellWidth * Double(column)
                let share = cell.rate / highest
                let window = cell.complete ? "window complete" : "window still open"
                let title =
                    "\(date) · \(placement): \(SVGChart.percent(cell.rate)) (\(cell.converted) of \(cell.customers) customers; \(window))"
                svg +=
                    "<rect x=\"\(SVGChart.fmt(x + 1))\" y=\"\(SVGChart.fmt(y + 1))\" width=\"\(SVGChart.fmt(max(1, cellWidth - 2)))\" height=\"\(SVGChart.fmt(rowHeight - 2))\" class=\"cell\(cell.complete ? "" : " open")\" style=\"fill-opacity:\(FixedPoint.string(0.06 + 0.94 * share, decimals: 3))\"><title>\(HTMLEscaping.attribute(title))</title></rect>"
                if cellWidth >= 30 {
                    svg +=
                        "<text x=\"\(SVGChart.fmt(x + cellWidth / 2))\" y=\"\(SVGChart.fmt(y + 18))\" class=\"cell-value middle\(share > 0.55 ? " on-dark" : "")\">\(FixedPoint.string(cell.rate * 100, decimals: 0))%</text>"
                }
            }
        }
        let stride = max(1, Int((Double(days.count) / 7).rounded(.up)))
        for column in Swift.stride(from: 0, to: days.count, by: stride) {
            let x = labelWidth + cellWidth * (Double(column) + 0.5)
            svg +=
                "<text x=\"\(SVGChart.fmt(x))\" y=\"\(SVGChart.fmt(gridBottom + 16))\" class=\"tick middle\">\(HTMLEscaping.attribute(days[column]))</text>"
        }
        svg +=
            "<text x=\"\(SVGChart.fmt(labelWidth + (width - labelWidth) / 2))\" y=\"\(SVGChart.fmt(gridBottom + 34))\" class=\"axis-title middle\">Day of the first impression</text>"
        // The scale: five swatches from 0 to the highest rate
        let legendY = gridBottom + 44
        svg +=
            "<text x=\"0\" y=\"\(SVGChart.fmt(legendY + 13))\" class=\"tick start\">bought within the window, of customers:</text>"
        for step in 0...4 {
            let share = Double(step) / 4
            let x = 280 + 64 * Double(step)
            svg +=
                "<rect x=\"\(SVGChart.fmt(x))\" y=\"\(SVGChart.fmt(legendY))\" width=\"20\" height=\"16\" class=\"cell\" style=\"fill-opacity:\(FixedPoint.string(0.06 + 0.94 * share, decimals: 3))\"/>"
                + "<text x=\"\(SVGChart.fmt(x + 24))\" y=\"\(SVGChart.fmt(legendY + 13))\" class=\"tick start\">\(SVGChart.percent(highest * share))</text>"
        }
        return svg + "</svg>"
    }

    /// The heat map's styles (appended to the page's).
    static let cohortStyle = """
        .heatmap .cell{fill:var(--accent);stroke:none}.heatmap .cell.open{stroke:var(--ink);stroke-width:1;stroke-dasharray:3 2}
        .heatmap .cell-value{font-size:11px;fill:var(--ink)}.heatmap .cell-value.on-dark{fill:#fff}
        """
}
