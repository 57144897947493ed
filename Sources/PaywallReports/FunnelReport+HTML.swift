import Foundation
import PaywallCore

extension ReportTable {
    /// The table of a written report file: its header and the rows kept by the writer (the first
    /// kept row is the header).
    init(file: ReportFile, keptRows: [[String]]) {
        self.init(name: String(file.fileName.dropLast(".csv".count)), columns: file.columns, rows: Array(keptRows.dropFirst()))
    }
}

extension FunnelReport {
    /// Writes `report.html` next to the CSV files, from the same rows.
    func writeHTML(_ tables: [ReportTable], days: [ReportDay], timezone: String, cohortWindow: CohortWindow,
                   into output: OutputFolder) throws {
        let period = days.isEmpty ? "no days" : "\(days[0].date) to \(days[days.count - 1].date)"
        let context = HTMLReport.Context(period: period, timezone: timezone, version: ProductVersion.current, cohortWindow: cohortWindow.description)
        try output.write(HTMLReport.fileName, Data(HTMLReport.render(tables: tables, context: context).utf8))
    }
}
