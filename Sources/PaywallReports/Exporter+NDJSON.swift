import Foundation
import PaywallCore
import PaywallOutput
import PaywallSQLite
import PaywallStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Exporter {
    /// What the NDJSON export selects: every ``EventColumn/record`` column, `open_s` as the text
    /// of its number (below); no rowid, as NDJSON has no delivery state. Parameters as
    /// ``eventsFilterSQL``.
    ///
    /// `open_s`, the one REAL column, is written with 17 significant digits by SQLite's `printf`:
    /// 15 (what `json_object` gives a REAL) do not always name the stored double, so importing an
    /// export back into its own store would count such closes as conflicts. 17 digits name every
    /// double exactly (0.1 reads `0.10000000000000001`, the same double).
    static let ndjsonSelectSQL = "SELECT \(Self.ndjsonColumns)"

    /// The record columns of ``ndjsonSelectSQL``, `open_s` as its text.
    static let ndjsonColumns = EventColumn.record.map { column in
        column == .openS
            ? "CASE WHEN e.open_s IS NULL THEN NULL ELSE printf('%!.17g', e.open_s) END"
            : "e.\(column.columnName)"
    }
    .joined(separator: ", ")

    /// The NDJSON export's query.
    static let eventsNDJSONSQL = """
        \(ndjsonSelectSQL)
        \(eventsFilterSQL)
        """

    /// The NDJSON export's query restricted to the rowids `?6...?7` (``ExportSplitRead``'s ranges).
    static let eventsNDJSONRangeSQL = """
        \(ndjsonSelectSQL)
        FROM events AS e
        WHERE e.rowid BETWEEN ?6 AND ?7 AND \(eventsConditionsSQL)
        ORDER BY e.rowid
        """

    /// Each line's members: the record columns under their own names, `open_s` a number.
    static let ndjsonMembers = ExportRowChunk.JSONMembers(
        names: EventColumn.record.map(\.columnName),
        numberColumn: EventColumn.record.firstIndex(of: .openS) ?? -1)

    /// Writes the filtered events as NDJSON to `path` (`-`: standard output), through ``OutputFile``
    /// as ``export(_:filter:raw:toPath:)`` does; returns the lines written.
    ///
    /// - Throws: ``ReportError``.
    @discardableResult
    public func exportEventsNDJSON(filter: ExportFilter = ExportFilter(), toPath path: String) throws -> Int64 {
        if path == "-" {
            return try exportEventsNDJSON(filter: filter, descriptor: STDOUT_FILENO, path: "standard output")
        }
        let file: OutputFile
        do { file = try OutputFile(path: path) } catch let error as OutputFileError { throw ReportError(error) }
        do {
            let lines = try exportEventsNDJSON(filter: filter, descriptor: file.descriptor, path: path)
            do { try file.commit() } catch let error as OutputFileError { throw ReportError(error) }
            return lines
        } catch {
            file.discard()
            throw error
        }
    }

    /// Writes the filtered events as NDJSON to an open descriptor (not closed); returns the lines
    /// written. One object per line with the envelope and the properties side by side, named as in
    /// the catalog and exactly as `import` reads them, a `NULL` field left out: the bytes SQLite's
    /// `json_patch('{}', json_object(…))` gives (``NDJSONWriter``), read as the CSV export reads
    /// the events (two threads on one snapshot where it can, ``ExportSplitRead``).
    ///
    /// Design note: the lines were built by SQLite (`json_object`, then `json_patch` to leave the
    /// `NULL` fields out) on the one reading thread, 4× the time of the CSV export at 1M events;
    /// they are now written in Swift from the encoded rows, like the CSV.
    public func exportEventsNDJSON(filter: ExportFilter, descriptor: Int32, path: String) throws -> Int64 {
        let values = try filterValues(filter)
        let columns = EventColumn.record.count
        var writer = NDJSONWriter(descriptor: descriptor, path: path)
        let lines: Int64
        if let split = ExportSplitRead(
            connection: connection, sql: Self.eventsNDJSONRangeSQL, values: values, columns: columns, withState: false,
            rangeRowids: splitRangeRowids)
        {
            lines = try split.write { try ExportRowChunk.writeNDJSON($0, members: Self.ndjsonMembers, into: &writer) }
        } else {
            lines = try readOnOneThread(Self.eventsNDJSONSQL, values, columns: columns, withState: false) {
                try ExportRowChunk.writeNDJSON($0, members: Self.ndjsonMembers, into: &writer)
            }
        }
        try writer.flush()
        return lines
    }
}
