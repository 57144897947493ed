import Foundation

/// Reads a small RFC 4180 CSV file (quoted fields, doubled quotes, CRLF or LF) into a header and rows.
struct CSVTable {
    var header: [String]
    var rows: [[String]]

    init?(path: String) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        var records: [[String]] = []
        var field = ""
        var record: [String] = []
        var quoted = false
        var iterator = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = iterator.next()
        while let scalar = pending {
            pending = iterator.next()
            if quoted {
                if scalar == "\"" {
                    if pending == "\"" {
                        field.unicodeScalars.append("\"")
                        pending = iterator.next()
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"": quoted = true
            case ",":
                record.append(field)
                field = ""
            case "\r": continue
            case "\n":
                record.append(field)
                records.append(record)
                record = []
                field = ""
            default: field.unicodeScalars.append(scalar)
            }
        }
        if !field.isEmpty || !record.isEmpty {
            record.append(field)
            records.append(record)
        }
        guard let header = records.first else { return nil }
        self.header = header
        rows = Array(records.dropFirst())
    }

    /// The value of `column` in `row`, or empty.
    func value(_ row: [String], _ column: String) -> String {
        guard let index = header.firstIndex(of: column), index < row.count else { return "" }
        return row[index]
    }
}

/// The demo's aligned per-placement summary, from `placement_summary.csv`.
enum DemoSummaryTable {
    static func lines(outputFolder: String) -> [String] {
        let path = URL(fileURLWithPath: outputFolder).appendingPathComponent("placement_summary.csv").path
        guard let table = CSVTable(path: path) else { return ["(no placement summary was written)"] }
        let columns = [
            "placement", "presentations", "impressions", "unique_viewers", "purchased", "conversion_rate", "open_s_p50",
        ]
        let titles = [
            "placement", "presentations", "impressions", "viewers", "purchased", "purchases per impression",
            "median open",
        ]
        let cells: [[String]] = table.rows.map { row in
            columns.map { column in
                let value = table.value(row, column)
                if column == "conversion_rate", let rate = Double(value) { return String(format: "%.2f%%", rate * 100) }
                if column == "open_s_p50", let seconds = Double(value) { return String(format: "%.1f s", seconds) }
                return value
            }
        }
        let widths = titles.indices.map { index in ([titles[index]] + cells.map { $0[index] }).map(\.count).max() ?? 0 }
        func line(_ values: [String]) -> String {
            values.enumerated().map { index, value in
                let pad = String(repeating: " ", count: widths[index] - value.count)
                return index == 0 ? value + pad : pad + value
            }.joined(separator: "  ")
        }
        return [line(titles), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
            + cells.map(line)
    }
}
