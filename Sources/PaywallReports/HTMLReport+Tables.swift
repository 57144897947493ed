import Foundation

/// Keeps every table on the page short enough to read: at most ``tableRowLimit`` rows. The data
/// quality table turns to one row per week when its days do not fit; any other table longer than
/// the limit shows its first rows and says how many more are in its CSV file (nothing is lost: the
/// files hold every row).
extension HTMLReport {
    /// The most rows a table on the page shows.
    static let tableRowLimit = 60

    /// `table` as the page shows it, and a note when rows were left to the CSV.
    static func shown(_ table: ReportTable?) -> (table: ReportTable?, note: String) {
        guard var table, table.rows.count > tableRowLimit else { return (table, "") }
        if table.name == "data_quality" {
            let weekly = weeklyQuality(table)
            if weekly.rows.count <= tableRowLimit {
                return (
                    weekly,
                    "<p class=\"note\">\(table.rows.count) days do not fit one table: one row per week (Monday to Sunday, by the week's Monday), each the sum of its days. Every day is in data_quality.csv.</p>"
                )
            }
            table = weekly
        }
        let hidden = table.rows.count - tableRowLimit
        table.rows = Array(table.rows.prefix(tableRowLimit))
        return (
            table,
            "<p class=\"note\">The first \(tableRowLimit) rows; \(hidden) more are in \(HTMLEscaping.escape(table.name)).csv.</p>"
        )
    }

    /// The data-quality rows summed per week (its columns other than `date` are all counts); the
    /// date column becomes `week_of`, the week's Monday.
    static func weeklyQuality(_ table: ReportTable) -> ReportTable {
        guard let dateColumn = table.columns.firstIndex(of: "date") else { return table }
        var weeks: [Int: [Int]] = [:]
        for row in table.rows {
            guard let day = CalendarDays.ordinal(row[dateColumn]) else { continue }
            // 1970-01-01 was a Thursday: day + 3 counts from a Monday
            let monday = day - ((day + 3) % 7 + 7) % 7
            var sums = weeks[monday] ?? Array(repeating: 0, count: row.count)
            for (index, cell) in row.enumerated() where index != dateColumn { sums[index] += Int(cell) ?? 0 }
            weeks[monday] = sums
        }
        var columns = table.columns
        columns[dateColumn] = "week_of"
        let rows = weeks.keys.sorted().map { monday in
            weeks[monday]!.enumerated().map { index, sum in index == dateColumn ? CalendarDays.date(monday) : "\(sum)" }
        }
        return ReportTable(name: table.name, columns: columns, rows: rows)
    }
}
