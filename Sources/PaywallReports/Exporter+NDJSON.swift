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
    /// Events as NDJSON, one object per line with the envelope and the properties side by side, named
    /// as in the catalog and exactly as `import` reads them (`null` fields left out by `json_patch`).
    /// Each member is named by its column (``EventColumn/record``, named as its NDJSON field);
    /// parameters as ``eventsFilterSQL``.
    static let eventsNDJSONSQL = """
        SELECT json_patch('{}', json_object(\(Self.ndjsonMembers)))
        \(Self.eventsFilterSQL)
        """

    /// `'id', e.id, 'name', e.name, …`: every ``EventColumn/record`` column under its own name.
    ///
    /// `open_s`, the one REAL column, is written with 17 significant digits: `json_object` renders a
    /// REAL with 15, which is not always the stored double, so importing an export back into its own
    /// store would count such closes as conflicts. 17 digits name every double exactly (0.1 reads
    /// `0.10000000000000001`, the same double); `json()` keeps the number's text as printed.
    static let ndjsonMembers = EventColumn.record.map { column -> String in
        let value =
            column == .openS
            ? "CASE WHEN e.open_s IS NULL THEN NULL ELSE json(printf('%!.17g', e.open_s)) END"
            : "e.\(column.columnName)"
        return "'\(column.columnName)', \(value)"
    }
    .joined(separator: ", ")

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

    /// Writes the filtered events as NDJSON to an open descriptor (not closed); returns the lines written.
    public func exportEventsNDJSON(filter: ExportFilter, descriptor: Int32, path: String) throws -> Int64 {
        let values = try filterValues(filter)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16 + 4096)
        var lines: Int64 = 0
        try ReportError.wrap {
            try connection.transaction(.deferred) { db in
                let statement = try db.makeStatement(Self.eventsNDJSONSQL)
                statement.bind(values)
                try statement.forEachRow { row in
                    row.withUnsafeText(at: 0) { buffer.append(contentsOf: $0) }
                    buffer.append(10)
                    lines += 1
                    if buffer.count >= 1 << 16 {
                        try buffer.withUnsafeBytes { try FileIO.writeAll(descriptor, $0, path: path) }
                        buffer.removeAll(keepingCapacity: true)
                    }
                    return true
                }
            }
        }
        try buffer.withUnsafeBytes { try FileIO.writeAll(descriptor, $0, path: path) }
        return lines
    }
}
