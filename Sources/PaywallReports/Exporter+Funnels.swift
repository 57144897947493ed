import Foundation
import PaywallCore
import PaywallSQLite

extension Exporter {
    /// The funnels export's columns: the encounter funnel, then the conversion funnel's own columns.
    static var funnelColumns: [String] {
        ReportFile.encounterFunnel.columns + ReportFile.conversionFunnel.columns.dropFirst(3)
    }

    /// Streams both per-day funnels side by side (they have the same (date, placement) rows, in the
    /// same order), over the filter's days, or over all stored history when no dates are given.
    func exportFunnels(_ filter: ExportFilter, _ writer: inout CSVWriter) throws -> Int64 {
        let calendar = try DayCalendar(timeZone: filter.timezone)
        let reports = FunnelReport(connection: connection, now: .constant(0))
        try reports.checkStore()
        try reports.refreshRollups()
        var from = filter.from
        var to = filter.to
        if from == nil || to == nil {
            let bounds = try ReportError.wrap {
                try connection.all(
                    "SELECT (SELECT min(first_at) FROM report_presentations), (SELECT max(first_at) FROM report_presentations)"
                ) {
                    ($0.optionalInt64(at: 0), $0.optionalInt64(at: 1))
                }.first
            }
            guard let first = bounds?.0, let last = bounds?.1 else {
                try writer.writeRow(Self.funnelColumns.map { .text($0) })
                return 0
            }
            from = from ?? calendar.date(containing: first)
            to = to ?? calendar.date(containing: last)
        }
        guard let from, let to else { return 0 }
        let days = try calendar.days(from: from, through: to)
        try writer.writeRow(Self.funnelColumns.map { .text($0) })
        let computed = try ReportError.wrap {
            try connection.transaction(.deferred) { db in
                try reports.nativeRows(db, days: days, placements: filter.placements, cohortWindow: .default)
            }
        }
        let left = ReportFile.encounterFunnel
        let right = ReportFile.conversionFunnel
        let encounter = computed[left.fileName] ?? []
        let conversion = computed[right.fileName] ?? []
        var rows: Int64 = 0
        for (a, b) in zip(encounter, conversion) {  // the same (date, placement) keys in the same order
            var cells = left.formats.indices.map { ReportFile.cell(a[$0], left.formats[$0]) }
            cells += right.formats.indices.dropFirst(3).map { ReportFile.cell(b[$0], right.formats[$0]) }
            try writer.writeRow(cells)
            rows += 1
        }
        return rows
    }
}
