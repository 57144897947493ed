import PaywallCore

/// Each offering's conversion and revenue per customer over the report's range, for the page's
/// offering trends (funnels.md "Offering comparison", "Over time"). For each day a (placement,
/// offering) was seen, one row: the comparison's customers and converted customers counted from the
/// range's first day through the end of that day, and the revenue of the subscriptions attributed
/// to its presentations of those days (as of the run). On the last day the offering was seen the
/// counts are the comparison's.
///
/// Design note: nothing here reads the store. The native engine's counts come from the offering
/// tallies it already keeps per day (``OfferingTallies/finish()``: the scan's or the day partials'
/// customers of each day, OR-ed in day order), so the nightly job pays no read for them; the SQL
/// engine runs `reports/offering_trends.sql`, the reference; the money comes from the run's
/// ``MoneyByDay``, which every run already holds. The page reads this table; it is not
/// written as a CSV.
enum OfferingTrends {
    /// The table's name and columns (counts cumulative; revenue in micro-dollars, exact).
    static let name = "offering_trends"
    static let columns = ["date", "placement", "offering", "customers", "converted", "revenue_micros"]

    /// The SQL engine's counts (columns `date` … `converted`).
    static let sql = ReportQueries.offeringTrends

    /// The table from the counts' rows (date, placement, offering, customers, converted, sorted by
    /// day) with each row's revenue: the attributed subscriptions' revenue of the (placement,
    /// offering)'s presentations whose first event falls from the range's first day through that date.
    static func table(counts: [[ReportValue]], money: MoneyByDay) -> ReportTable {
        let days = money.days
        struct Key: Hashable {
            var placement: ExactText
            var offering: ExactText
        }
        // Revenue per key and day, then summed from the first day (a day without a row still counts).
        var running: [Key: [Int64]] = [:]
        for (day, entries) in money.cells.enumerated() {
            for entry in entries {
                running[
                    Key(placement: ExactText(entry.placement), offering: ExactText(entry.offering)),
                    default: [Int64](repeating: 0, count: days.count)][day] += entry.cell.revenue
            }
        }
        for key in running.keys {
            for day in 1..<max(1, days.count) { running[key]![day] += running[key]![day - 1] }
        }
        var dayIndex: [String: Int] = [:]
        for (index, day) in days.enumerated() { dayIndex[day.date.description] = index }
        let rows = counts.map { row -> [String] in
            let cells = row.map(Self.text)
            let key = Key(placement: ExactText(cells[1]), offering: ExactText(cells[2]))
            let revenue = dayIndex[cells[0]].flatMap { running[key]?[$0] } ?? 0
            return Array(cells.prefix(5)) + [String(revenue)]
        }
        return ReportTable(name: name, columns: columns, rows: rows)
    }

    /// A cell as text (counts as decimal integers).
    static func text(_ value: ReportValue) -> String {
        switch value {
        case .text(let text): text
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .null: ""
        }
    }
}
