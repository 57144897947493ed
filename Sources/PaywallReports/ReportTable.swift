/// One report as a table of raw text cells (no CSV formula guard), as the HTML page reads it.
public struct ReportTable: Sendable, Hashable {
    /// The report's file stem, e.g. `conversion_funnel`.
    public var name: String
    /// Column names in order.
    public var columns: [String]
    /// Rows of raw cell text, one cell per column.
    public var rows: [[String]]

    /// Creates a table.
    public init(name: String, columns: [String], rows: [[String]]) {
        self.name = name
        self.columns = columns
        self.rows = rows
    }

    /// The table with only `names` (those it has), in that order.
    public func selecting(_ names: [String]) -> ReportTable {
        let indexes = names.compactMap { columns.firstIndex(of: $0) }
        return ReportTable(
            name: name, columns: indexes.map { columns[$0] }, rows: rows.map { row in indexes.map { row[$0] } })
    }

    /// The rows as dictionaries keyed by column name.
    public var records: [[String: String]] {
        rows.map { Dictionary(uniqueKeysWithValues: zip(columns, $0)) }
    }
}
