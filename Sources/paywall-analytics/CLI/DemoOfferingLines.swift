import Foundation

/// The demo's lines about the offering comparison, from `offering_comparison.csv`: per placement
/// with more than one offering, the offerings ranked by conversion and by revenue per customer,
/// whether the conversion difference is decided (the always-valid interval of the difference
/// excludes zero) or not yet, one sentence on which ranking to trust, and a warning when the
/// sample-ratio check says the split is broken.
enum DemoOfferingLines {
    static func lines(outputFolder: String) -> [String] {
        let path = URL(fileURLWithPath: outputFolder).appendingPathComponent("offering_comparison.csv").path
        guard let table = CSVTable(path: path) else { return [] }
        var placements: [(String, [[String]])] = []
        for row in table.rows {
            let placement = table.value(row, "placement")
            if placements.last?.0 == placement {
                placements[placements.count - 1].1.append(row)
            } else {
                placements.append((placement, [row]))
            }
        }
        var lines: [String] = []
        for (placement, rows) in placements where rows.count > 1 {
            guard let control = rows.first(where: { table.value($0, "is_control") == "true" }) else { continue }
            lines += placementLines(placement, rows: rows, control: control, table: table)
        }
        return lines.isEmpty
            ? []
            : [
                "Offering comparison (customers who bought, of the customers who saw each offering; against each placement's control; decided only where the always-valid 95 % interval of the difference excludes zero):"
            ] + lines
    }

    static func placementLines(_ placement: String, rows: [[String]], control: [String], table: CSVTable) -> [String] {
        func value(_ row: [String], _ column: String) -> Double? { Double(table.value(row, column)) }
        let controlName = table.value(control, "offering")
        var lines: [String] = []
        if let srm = value(control, "srm_p_value"), srm < 0.001 {
            lines.append(
                "  \(placement): warning — the sample-ratio check finds the customers far from an even split between the offerings (\(pText(srm))); unless the test was set up to split unevenly, the assignment is broken and no result here should be trusted."
            )
        }
        let decided = rows.filter { row in
            (value(row, "seq_ci_low") ?? 0) > 0 || (value(row, "seq_ci_high") ?? 0) < 0
        }
        for row in decided {
            let better = (value(row, "diff") ?? 0) > 0
            lines.append(
                "  \(placement): \(table.value(row, "offering")) converts \(better ? "better" : "worse") than \(controlName) "
                    + "(\(percent(table.value(row, "conversion_rate"))) vs \(percent(table.value(control, "conversion_rate"))) "
                    + "of customers; always-valid interval of the difference [\(points(value(row, "seq_ci_low")))"
                    + ", \(points(value(row, "seq_ci_high")))] points).")
        }
        if decided.isEmpty {
            lines.append(
                "  \(placement): not decided yet — no offering's always-valid interval against \(controlName) excludes zero."
            )
        }
        let byConversion = rows.sorted { (value($0, "conversion_rate") ?? 0) > (value($1, "conversion_rate") ?? 0) }
        let byRevenue = rows.sorted {
            (value($0, "revenue_per_customer") ?? 0) > (value($1, "revenue_per_customer") ?? 0)
        }
        let name = { (row: [String]) in table.value(row, "offering").isEmpty ? "(none)" : table.value(row, "offering") }
        lines.append(
            "    by conversion:           "
                + byConversion.map { "\(name($0)) \(percent(table.value($0, "conversion_rate")))" }.joined(
                    separator: " > "))
        guard rows.contains(where: { (value($0, "revenue_per_customer") ?? 0) != 0 }) else {
            lines.append("    by revenue per customer: no subscription revenue is attributed to this placement yet.")
            return lines
        }
        lines.append(
            "    by revenue per customer: "
                + byRevenue.map { "\(name($0)) $\(table.value($0, "revenue_per_customer"))" }.joined(separator: " > "))
        let topConversion = byConversion[0]
        let topRevenue = byRevenue[0]
        if name(topConversion) == name(topRevenue) {
            lines.append(
                "    Both rankings agree: \(name(topRevenue)) leads by conversion and by money.")
        } else {
            let trials = Int(table.value(topConversion, "trial_starts")) ?? 0
            let why =
                trials > 0
                ? "its conversions include \(trials) free-trial starts, and trials that lapse earn nothing"
                : "its customers pay less"
            // the Welch test of the non-control one against the control
            let p = value(topRevenue, "revenue_p_value") ?? value(topConversion, "revenue_p_value")
            if let p, p < 0.05 {
                lines.append(
                    "    Trust revenue per customer: \(name(topConversion)) converts more, but \(why); \(name(topRevenue)) earns more per customer who saw it (Welch \(pText(p)))."
                )
            } else {
                lines.append(
                    "    Decide by revenue per customer, but not yet: \(name(topRevenue)) earns more per customer so far, and the difference can still be noise\(p.map { " (Welch \(pText($0)))" } ?? "")."
                )
            }
        }
        return lines
    }

    static func percent(_ text: String) -> String {
        Double(text).map { String(format: "%.1f%%", $0 * 100) } ?? text
    }

    static func points(_ value: Double?) -> String {
        guard let value else { return "?" }
        return (value >= 0 ? "+" : "") + String(format: "%.1f", value * 100)
    }

    static func pText(_ p: Double) -> String { p < 0.0001 ? "p < 0.0001" : String(format: "p = %.4f", p) }
}
