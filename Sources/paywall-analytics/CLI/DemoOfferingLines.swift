import Foundation

/// The demo's lines about the offering comparison, from `offering_comparison.csv`: per placement
/// with more than one offering, the offering that differs from the control at p < 0.05, or
/// "no winner yet".
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
            let controlName = table.value(control, "offering")
            let controlRate = percent(table.value(control, "conversion_rate"))
            let winners = rows.filter { (Double(table.value($0, "p_value")) ?? 1) < 0.05 }
            if winners.isEmpty {
                let ps = rows.compactMap { Double(table.value($0, "p_value")) }.map { String(format: "p = %.2f", $0) }
                lines.append(
                    "  \(placement): no winner yet — no offering differs from \(controlName) at p < 0.05 (\(ps.joined(separator: ", ")))."
                )
                continue
            }
            for row in winners {
                let rate = Double(table.value(row, "conversion_rate")) ?? 0
                let base = Double(table.value(control, "conversion_rate")) ?? 0
                let p = Double(table.value(row, "p_value")) ?? 1
                lines.append(
                    "  \(placement): \(table.value(row, "offering")) converts \(rate > base ? "better" : "worse") than "
                        + "\(controlName) (\(percent(table.value(row, "conversion_rate"))) vs \(controlRate) of customers, "
                        + (p < 0.0001 ? "p < 0.0001" : String(format: "p = %.4f", p)) + ").")
            }
        }
        return lines.isEmpty
            ? []
            : [
                "Offering comparison (customers who bought, of the customers who saw each offering; against each placement's control):"
            ] + lines
    }

    static func percent(_ text: String) -> String {
        Double(text).map { String(format: "%.1f%%", $0 * 100) } ?? text
    }
}
