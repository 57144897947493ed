import Foundation

/// The page's offering comparison (`offering_comparison.csv`): per placement with more than one
/// offering, each offering's conversion rate as a bar with its 95 % interval as whiskers, the
/// control marked, lift and p-value beside each row, and in words whether any offering differs
/// from the control at p < 0.05 ("no winner yet" otherwise), so noise is not read as a result.
extension HTMLReport {
    /// One row of `offering_comparison.csv`, parsed.
    struct OfferingRow {
        var offering: String
        var customers: Int
        var converted: Int
        var rate: Double
        var low: Double
        var high: Double
        var isControl: Bool
        var lift: Double?
        var p: Double?

        init?(_ record: [String: String]) {
            guard let rate = record["conversion_rate"].flatMap(Double.init),
                let low = record["ci_low"].flatMap(Double.init),
                let high = record["ci_high"].flatMap(Double.init)
            else { return nil }
            offering = record["offering"] ?? ""
            customers = record["customers"].flatMap { Int($0) } ?? 0
            converted = record["converted"].flatMap { Int($0) } ?? 0
            (self.rate, self.low, self.high) = (rate, low, high)
            isControl = record["is_control"] == "true"
            lift = record["lift"].flatMap(Double.init)
            p = record["p_value"].flatMap(Double.init)
        }

        /// The offering as shown ("(none)" for presentations whose first impression had no offering).
        var name: String { offering.isEmpty ? "(none)" : offering }
        /// Differs from the control at the 5 % level.
        var significant: Bool { !isControl && (p ?? 1) < 0.05 }
    }

    /// The section, or "" when the comparison file is not among the tables.
    static func offeringSection(_ table: ReportTable?) -> String {
        guard let table else { return "" }
        var placements: [(String, [OfferingRow])] = []
        for record in table.records {
            guard let row = OfferingRow(record) else { continue }
            let placement = record["placement"] ?? ""
            if let last = placements.last, last.0.utf8.elementsEqual(placement.utf8) {
                placements[placements.count - 1].1.append(row)
            } else {
                placements.append((placement, [row]))
            }
        }
        var out = "<section class=\"offerings\"><h2>Offering comparison</h2><p class=\"note\">Conversion by customer: "
        out += "customers who bought after seeing the offering, of the customers who saw it (a customer seen with two "
        out +=
            "offerings counts in both). Bars are the conversion rate (of customers, not per impression), whiskers its 95 % interval; each offering is "
        out += "compared with the placement's control by a two-proportion test.</p>"
        let compared = placements.filter { $0.1.count > 1 }
        if compared.isEmpty {
            out += "<p class=\"empty\">No placement showed more than one offering in this range.</p>"
        }
        for (placement, rows) in compared { out += offeringBlock(placement, rows) }
        let single = placements.filter { $0.1.count == 1 }.map { "<q>\(HTMLEscaping.data($0.0))</q>" }
        if !single.isEmpty {
            out += "<p class=\"note\">One offering only (nothing to compare): \(single.joined(separator: ", ")).</p>"
        }
        return out + HTMLReport.table(table) + "</section>"
    }

    /// The chart and the verdict of one placement.
    static func offeringBlock(_ placement: String, _ rows: [OfferingRow]) -> String {
        let control = rows.first(where: \.isControl)
        var out = "<div class=\"offering-block\"><h3>Placement <q>\(HTMLEscaping.data(placement))</q></h3>"
        out += offeringChart(rows, title: "Conversion by offering at \(placement)")
        let winners = rows.filter(\.significant)
        let controlName = "<q>\(HTMLEscaping.data(control?.name ?? ""))</q>"
        if winners.isEmpty {
            out +=
                "<p class=\"verdict none\"><strong>No winner yet:</strong> no offering differs from the control \(controlName) "
            out += "at p &lt; 0.05. The differences above can be noise; keep collecting before choosing.</p>"
        } else {
            for row in winners {
                let better = row.rate > (control?.rate ?? 0)
                out += "<p class=\"verdict \(better ? "win" : "lose")\"><strong><q>\(HTMLEscaping.data(row.name))</q> "
                out += better ? "converts better" : "converts worse"
                out += "</strong> than the control \(controlName): \(SVGChart.percent(row.rate)) against "
                out +=
                    "\(SVGChart.percent(control?.rate ?? 0)) (\(HTMLEscaping.escape(liftAndP(row)))), a difference at p &lt; 0.05.</p>"
            }
        }
        return out + "</div>"
    }

    /// "lift +12.3% · p = 0.0123" (or "control").
    static func liftAndP(_ row: OfferingRow) -> String {
        if row.isControl { return "control" }
        let lift = row.lift.map { (($0 >= 0) ? "+" : "") + SVGChart.percent($0) } ?? "—"
        let p = row.p.map { $0 < 0.0001 ? "p < 0.0001" : String(format: "p = %.4f", $0) } ?? "p —"
        return "lift \(lift) · \(p)"
    }

    /// Horizontal bars (rate) with whiskers (95 % interval) on one scale, each labelled above, the
    /// control highlighted; rate, interval, lift and p-value beside each bar.
    static func offeringChart(_ rows: [OfferingRow], title: String) -> String {
        let width = 760.0
        let rowHeight = 44.0
        let plotWidth = 380.0
        let textX = plotWidth + 14
        let height = rowHeight * Double(rows.count) + 20
        let top = max(0.05, (rows.map(\.high).max() ?? 0) * 1.05)
        func x(_ value: Double) -> Double { plotWidth * min(value, top) / top }
        var svg = """
            <svg class="chart offering-chart" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="\(HTMLEscaping.attribute(title))" preserveAspectRatio="xMinYMin meet">
            <line x1="0.5" y1="16" x2="0.5" y2="\(SVGChart.fmt(height - 18))" class="axis"/>
            """
        for (index, row) in rows.enumerated() {
            let y = Double(index) * rowHeight
            let middle = y + 27
            let label = row.isControl ? "\(row.name) (control)" : row.name
            let bar = row.isControl ? " control" : row.significant ? " significant" : ""
            svg += """
                <text x="0" y="\(SVGChart.fmt(y + 13))" class="label\(row.isControl ? " control-label" : "")">\(HTMLEscaping.attribute(label))</text>\
                <rect x="0" y="\(SVGChart.fmt(y + 18))" width="\(SVGChart.fmt(max(1, x(row.rate))))" height="18" rx="2" class="bar\(bar)"><title>\(HTMLEscaping.attribute(row.name)): \(row.converted) of \(row.customers) customers</title></rect>\
                <line x1="\(SVGChart.fmt(x(row.low)))" y1="\(SVGChart.fmt(middle))" x2="\(SVGChart.fmt(x(row.high)))" y2="\(SVGChart.fmt(middle))" class="whisker"/>\
                <line x1="\(SVGChart.fmt(x(row.low)))" y1="\(SVGChart.fmt(middle - 6))" x2="\(SVGChart.fmt(x(row.low)))" y2="\(SVGChart.fmt(middle + 6))" class="whisker"/>\
                <line x1="\(SVGChart.fmt(x(row.high)))" y1="\(SVGChart.fmt(middle - 6))" x2="\(SVGChart.fmt(x(row.high)))" y2="\(SVGChart.fmt(middle + 6))" class="whisker"/>\
                <text x="\(SVGChart.fmt(textX))" y="\(SVGChart.fmt(middle + 4))" class="value">\(HTMLEscaping.attribute("\(SVGChart.percent(row.rate)) [\(SVGChart.percent(row.low))–\(SVGChart.percent(row.high))] · \(liftAndP(row))"))</text>
                """
        }
        let axisY = height - 4
        svg += "<text x=\"0\" y=\"\(SVGChart.fmt(axisY))\" class=\"tick start\">0%</text>"
        svg +=
            "<text x=\"\(SVGChart.fmt(plotWidth))\" y=\"\(SVGChart.fmt(axisY))\" class=\"tick end\">\(HTMLEscaping.attribute(SVGChart.percent(top)))</text>"
        return svg + "</svg>"
    }

    /// The section's styles (appended to the page's).
    static let offeringStyle = """
        .offering-block{margin:0 0 12px}.offering-chart{max-width:760px}.bar.control{fill:#8a94a6}.bar.significant{fill:#1f9d55}
        .whisker{stroke:var(--ink);stroke-width:1.5}.chart .control-label{font-weight:600}
        .verdict{margin:4px 0 12px}.verdict.none{color:var(--muted)}.verdict.win{color:#1f7a45}.verdict.lose{color:var(--warn)}
        """
}
