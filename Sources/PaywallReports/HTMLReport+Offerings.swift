import Foundation
import PaywallCore

/// The page's offering comparison (`offering_comparison.csv`): per placement with more than one
/// offering, each offering's conversion rate as a bar with its 95 % interval as whiskers, the
/// control marked, lift and p-value beside each row, conversion and revenue per customer side by
/// side, and in words whether an offering differs from the control by the always-valid interval
/// ("not decided yet" otherwise), so noise and daily peeking are not read as a result.
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
        /// Revenue and revenue per customer as written (exact decimals), the latter's interval bounds.
        var revenue: String?
        var rpc: String?
        var rpcLow: Double?
        var rpcHigh: Double?
        /// The Welch test of revenue per customer against the control's.
        var revenueP: Double?
        /// The always-valid interval of the difference in conversion against the control.
        var seqLow: Double?
        var seqHigh: Double?
        /// The placement's sample-ratio check.
        var srmP: Double?

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
            revenue = record["revenue_usd"].flatMap { $0.isEmpty ? nil : $0 }
            rpc = record["revenue_per_customer"].flatMap { $0.isEmpty ? nil : $0 }
            rpcLow = record["rpc_ci_low"].flatMap(Double.init)
            rpcHigh = record["rpc_ci_high"].flatMap(Double.init)
            revenueP = record["revenue_p_value"].flatMap(Double.init)
            seqLow = record["seq_ci_low"].flatMap(Double.init)
            seqHigh = record["seq_ci_high"].flatMap(Double.init)
            srmP = record["srm_p_value"].flatMap(Double.init)
        }

        /// The offering as shown ("(none)" for presentations whose first impression had no offering).
        var name: String { offering.isEmpty ? "(none)" : offering }
        /// Differs from the control by the always-valid interval (it excludes zero).
        var significant: Bool { !isControl && ((seqLow ?? 0) > 0 || (seqHigh ?? 0) < 0) }
    }

    /// The section, or "" when the comparison file is not among the tables.
    /// `trends`: the `offering_trends` table drawn under each compared placement over `calendar`.
    static func offeringSection(_ table: ReportTable?, trends: ReportTable? = nil, calendar: [String] = []) -> String {
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
        out +=
            "compared with the placement's control. An offering is declared better or worse only where the always-valid interval of the "
        out += "difference in conversion excludes zero (it stays right however often the report is looked at); "
        out += "revenue per customer counts the money RevenueCat reported for the subscriptions bought after the "
        out += "offering was seen. Under each placement, the same two figures over time: each point counts "
        out += "from the range's first day through its day, so the last point of each line is the figure in the "
        out += "table; hover a point for what it counts.</p>"
        let compared = placements.filter { $0.1.count > 1 }
        if compared.isEmpty {
            out += "<p class=\"empty\">No placement showed more than one offering in this range.</p>"
        }
        let trendDays = offeringDays(trends)
        for (placement, rows) in compared {
            out += offeringBlock(placement, rows)
            if trends != nil {
                out += offeringTrends(
                    placement, offerings: rows.map(\.offering), byOffering: trendDays[ExactText(placement)] ?? [:],
                    calendar: calendar)
            }
        }
        let single = placements.filter { $0.1.count == 1 }.map { "<q>\(HTMLEscaping.data($0.0))</q>" }
        if !single.isEmpty {
            out += "<p class=\"note\">One offering only (nothing to compare): \(single.joined(separator: ", ")).</p>"
        }
        out += HTMLReport.table(table.selecting(Array(table.columns.prefix(ReportFile.offeringSQLColumns))))
        out += "<h3>Money and the always-valid comparison</h3>"
        out += HTMLReport.table(
            table.selecting([
                "placement", "offering", "customers", "paid_starts", "trial_starts", "revenue_usd",
                "revenue_per_customer", "rpc_ci_low", "rpc_ci_high", "revenue_p_value",
            ]))
        out += HTMLReport.table(
            table.selecting([
                "placement", "offering", "customers", "diff", "seq_ci_low", "seq_ci_high", "seq_p_value", "srm_p_value",
            ]))
        return out + "</section>"
    }

    /// The chart and the verdict of one placement: conversion and revenue per customer side by side
    /// with their intervals, "winner" or "loser" only where the always-valid interval of the difference
    /// in conversion excludes zero, and a warning in words when the sample ratio is broken.
    static func offeringBlock(_ placement: String, _ rows: [OfferingRow]) -> String {
        let control = rows.first(where: \.isControl)
        var out = "<div class=\"offering-block\"><h3>Placement <q>\(HTMLEscaping.data(placement))</q></h3>"
        if let srm = rows.compactMap(\.srmP).first, srm < 0.001 {
            out +=
                "<p class=\"verdict srm\"><strong>The split of customers is broken:</strong> the offerings' customers "
            out += "are far from an even split (sample-ratio check \(HTMLEscaping.escape(pText(srm)))). The assignment "
            out += "itself is not working, so no result of this placement should be trusted until it is fixed.</p>"
        }
        out += offeringChart(rows, title: "Conversion by offering at \(placement)")
        out += sideBySide(rows)
        let controlName = "<q>\(HTMLEscaping.data(control?.name ?? ""))</q>"
        for row in rows where !row.isControl {
            let name = "<q>\(HTMLEscaping.data(row.name))</q>"
            let rates = "\(SVGChart.percent(row.rate)) against \(SVGChart.percent(control?.rate ?? 0))"
            guard let low = row.seqLow, let high = row.seqHigh else {
                out += "<p class=\"verdict none\"><strong>Not decided yet:</strong> \(name) against the control "
                out += "\(controlName) (\(rates)): too little data to compare.</p>"
                continue
            }
            let interval = HTMLEscaping.escape("[\(points(low)), \(points(high))] percentage points")
            if low > 0 || high < 0 {
                out +=
                    "<p class=\"verdict \(low > 0 ? "win" : "lose")\"><strong>\(low > 0 ? "Winner" : "Loser"): \(name) "
                out += low > 0 ? "converts better" : "converts worse"
                out += "</strong> than the control \(controlName): \(rates). The always-valid 95 % interval of the "
                out +=
                    "difference, \(interval), excludes zero, so this holds however often the report was looked at.</p>"
            } else {
                out += "<p class=\"verdict none\"><strong>Not decided yet:</strong> \(name) against the control "
                out += "\(controlName) (\(rates)): the always-valid 95 % interval of the difference, \(interval), "
                out += "still includes zero. The difference can be noise; keep collecting before choosing "
                out += "(looking every day is fine: this interval allows for it).</p>"
            }
            out += moneyVerdict(row, control: control, convertsBetter: low > 0, convertsWorse: high < 0)
        }
        return out + "</div>"
    }

    /// What the money says of `row` against the control, in words, beside the conversion verdict:
    /// whether it earns more or less per customer by the Welch test (p < 0.05), with both means and
    /// intervals, and plainly when that contradicts the conversion verdict. Never "winner": the
    /// Welch test holds for one look at a planned sample, not for a look every day. "" without money.
    static func moneyVerdict(_ row: OfferingRow, control: OfferingRow?, convertsBetter: Bool, convertsWorse: Bool)
        -> String
    {
        guard let rpc = row.rpc, let controlRPC = control?.rpc else { return "" }
        func withInterval(_ value: String, _ low: Double?, _ high: Double?) -> String {
            "$\(value)" + (low.flatMap { low in high.map { " [$\(dollars(low)), $\(dollars($0))]" } } ?? "")
        }
        let figures = HTMLEscaping.escape(
            "\(withInterval(rpc, row.rpcLow, row.rpcHigh)) per customer against "
                + "\(withInterval(controlRPC, control?.rpcLow, control?.rpcHigh))")
        let name = "<q>\(HTMLEscaping.data(row.name))</q>"
        guard let p = row.revenueP, p < 0.05, let mean = Double(rpc), let controlMean = Double(controlRPC),
            mean != controlMean
        else {
            let test = row.revenueP.map { " (Welch test \(HTMLEscaping.escape(pText($0))))" } ?? ""
            return "<p class=\"verdict money none\"><strong>By money, no difference shown:</strong> \(name) earned "
                + "\(figures) for the control\(test).</p>"
        }
        let less = mean < controlMean
        var out = "<p class=\"verdict money \(less ? "lose" : "win")\"><strong>By money, \(name) earns "
        out += "\(less ? "less" : "more") per customer</strong> than the control: \(figures) "
        out += "(Welch test \(HTMLEscaping.escape(pText(p)))"
        out += "; a fixed-horizon test: read it once the planned sample is in, not every day)."
        if less && convertsBetter {
            out += " It converts better but earns less: if revenue is what you choose by, the control is ahead."
        } else if !less && convertsWorse {
            out += " It converts worse but earns more: if revenue is what you choose by, it is ahead of the control."
        }
        return out + "</p>"
    }

    /// Conversion and revenue per customer of each offering, side by side with their 95 % intervals.
    static func sideBySide(_ rows: [OfferingRow]) -> String {
        var out = "<div class=\"scroll\"><table class=\"side-by-side\"><thead><tr><th>offering</th><th>customers</th>"
        out += "<th>conversion [95 % interval]</th><th>revenue per customer [95 % interval]</th><th>revenue</th>"
        out += "</tr></thead><tbody>"
        for row in rows {
            let name = row.isControl ? "\(row.name) (control)" : row.name
            let money: String
            if let rpc = row.rpc {
                money =
                    "$\(rpc)"
                    + (row.rpcLow.flatMap { low in row.rpcHigh.map { " [$\(dollars(low)), $\(dollars($0))]" } } ?? "")
            } else {
                money = "—"
            }
            out += "<tr><td>\(HTMLEscaping.data(name))</td><td class=\"n\">\(row.customers)</td>"
            out +=
                "<td class=\"n\">\(HTMLEscaping.escape("\(SVGChart.percent(row.rate)) [\(SVGChart.percent(row.low)), \(SVGChart.percent(row.high))]"))</td>"
            out +=
                "<td class=\"n\">\(HTMLEscaping.escape(money))</td><td class=\"n\">\(HTMLEscaping.escape(row.revenue.map { "$" + $0 } ?? "—"))</td></tr>"
        }
        return out + "</tbody></table></div>"
    }

    /// A difference of rates in percentage points with its sign: "+1.2", "-0.4".
    static func points(_ value: Double) -> String {
        (value >= 0 ? "+" : "") + FixedPoint.string(value * 100, decimals: 1)
    }

    /// Dollars with 2 decimals, for a bound of an interval ("-1.20").
    static func dollars(_ value: Double) -> String { FixedPoint.string(value, decimals: 2) }

    /// "p = 0.0123" or "p < 0.0001".
    static func pText(_ p: Double) -> String {
        p < 0.0001 ? "p < 0.0001" : ("p = " + FixedPoint.string(p, decimals: 4))
    }

    /// "lift +12.3% · p = 0.0123" (or "control").
    static func liftAndP(_ row: OfferingRow) -> String {
        if row.isControl { return "control" }
        let lift = row.lift.map { (($0 >= 0) ? "+" : "") + SVGChart.percent($0) } ?? "—"
        let p = row.p.map { $0 < 0.0001 ? "p < 0.0001" : ("p = " + FixedPoint.string($0, decimals: 4)) } ?? "p —"
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
        .verdict.srm{color:var(--warn);font-weight:600}.side-by-side td.n{text-align:right}
        .verdict{margin:4px 0 12px}.verdict.money{margin-top:-6px}.verdict.none{color:var(--muted)}.verdict.win{color:#1f7a45}.verdict.lose{color:var(--warn)}
        """
}
