import Foundation
import PaywallSQLite
import PaywallStore

extension Exporter {
    /// The events the exports read (`events AS e`), in rowid order: ?1/?2 time bounds, ?3 placements,
    /// ?4 names and ?5 user ids as JSON arrays (or NULL); the table and the NDJSON exports share it.
    static let eventsFilterSQL = """
        FROM events AS e
        WHERE \(eventsConditionsSQL)
        ORDER BY e.rowid
        """

    /// The conditions of ``eventsFilterSQL``.
    static let eventsConditionsSQL = """
        e.occurred_at >= ?1 AND e.occurred_at < ?2
          AND (?3 IS NULL OR e.source IN (SELECT value FROM json_each(?3)))
          AND (?4 IS NULL OR e.name IN (SELECT value FROM json_each(?4)))
          AND (?5 IS NULL OR e.user_id IN (SELECT value FROM json_each(?5)))
        """

    /// What the events export selects: every record column, then the rowid (for the delivery state).
    static let eventsSelectSQL = "SELECT \(EventColumn.list(prefix: "e.")), e.rowid"

    /// The events export's query restricted to the rowids `?6...?7` (``ExportSplitRead``'s ranges).
    static let eventsRangeSQL = """
        \(eventsSelectSQL)
        FROM events AS e
        WHERE e.rowid BETWEEN ?6 AND ?7 AND \(eventsConditionsSQL)
        ORDER BY e.rowid
        """

    /// Column names and SQL of the table exports. Parameters: ?1/?2 time bounds, ?3 placements
    /// JSON (or NULL), ?4 names JSON (or NULL), ?5 user ids JSON (or NULL); quarantine uses only the time bounds. In the quarantine
    /// export, `payload_escaped` is 1 when the line was not valid UTF-8 and `payload` shows each invalid
    /// byte as `\xHH` (the exact bytes stay in the table's `payload_raw`), 0 when `payload` is the text as read.
    static let tables: [ExportKind: (columns: [String], sql: String)] = [
        .events: (
            EventColumn.record.map(\.columnName) + ["delivery_state"],
            """
            \(eventsSelectSQL)
            \(eventsFilterSQL)
            """
        ),
        .quarantine: (
            ["seq", "quarantined_at", "reasons", "origin", "line", "payload", "payload_escaped"],
            """
            SELECT seq, quarantined_at, reasons, origin, line, payload, payload_raw IS NOT NULL FROM quarantine
            WHERE quarantined_at >= ?1 AND quarantined_at < ?2
            ORDER BY seq
            """
        ),
        .deadLetters: (
            ["event_id", "status", "reason", "dead_at", "requeued_at", "name", "occurred_at", "user_id", "source"],
            """
            SELECT d.event_id, d.status, d.reason, d.dead_at, d.requeued_at, e.name, e.occurred_at, e.user_id, e.source
            FROM dead_letters AS d LEFT JOIN events AS e ON e.id = d.event_id
            WHERE d.dead_at >= ?1 AND d.dead_at < ?2
              AND (?3 IS NULL OR e.source IN (SELECT value FROM json_each(?3)))
              AND (?4 IS NULL OR e.name IN (SELECT value FROM json_each(?4)))
              AND (?5 IS NULL OR e.user_id IN (SELECT value FROM json_each(?5)))
            ORDER BY d.dead_at, d.event_id
            """
        ),
    ]

    /// The events export's millisecond columns that are followed by the same time as ISO 8601 UTC text,
    /// in a column named with `_iso` appended (`occurred_at_iso`: `2026-10-03T12:34:56.789Z`; empty when
    /// the time is).
    static let isoColumns: Set<String> = [EventColumn.occurredAt.columnName, EventColumn.recordedAt.columnName]

    /// The header of a table export: its query's columns, each of ``isoColumns`` followed by its `_iso` twin.
    static func header(_ kind: ExportKind, _ columns: [String]) -> [String] {
        guard kind == .events else { return columns }
        return columns.flatMap { isoColumns.contains($0) ? [$0, $0 + "_iso"] : [$0] }
    }

    /// The parameters of ``eventsFilterSQL`` for `filter` (the quarantine export reads the first two).
    func filterValues(_ filter: ExportFilter) throws -> [SQLValue] {
        let (start, end) = try bounds(filter)
        return [
            .integer(start), .integer(end),
            filter.placements.isEmpty ? .null : .text(FunnelReport.jsonArray(filter.placements)),
            filter.names.isEmpty ? .null : .text(FunnelReport.jsonArray(filter.names)),
            filter.users.isEmpty ? .null : .text(FunnelReport.jsonArray(filter.users)),
        ]
    }

    /// Streams one table export.
    func exportTable(_ kind: ExportKind, _ filter: ExportFilter, _ writer: inout CSVWriter) throws -> Int64 {
        guard let table = Self.tables[kind] else { return 0 }
        let values = try filterValues(filter)
        try writer.writeRow(Self.header(kind, table.columns).map { .text($0) })
        // Events: the last column (delivery_state) is computed; the query's extra last column is the rowid.
        let selected = kind == .events ? table.columns.count - 1 : table.columns.count
        let withState = kind == .events
        let iso = kind == .events ? table.columns.prefix(selected).map { Self.isoColumns.contains($0) } : []
        if kind == .events,
            let split = ExportSplitRead(
                connection: connection, sql: Self.eventsRangeSQL, values: values, columns: selected, withState: true,
                rangeRowids: splitRangeRowids)
        {
            return try split.write { chunk in
                try ExportRowChunk.write(chunk, columns: selected, withState: true, iso: iso, into: &writer)
            }
        }
        return try readOnOneThread(table.sql, values, columns: selected, withState: withState) { chunk in
            try ExportRowChunk.write(chunk, columns: selected, withState: withState, iso: iso, into: &writer)
        }
    }

    /// Reads `sql` with `values` on one thread, encoding its first `columns` columns and, `withState`,
    /// the delivery state read from the rowid column after them; hands each chunk to `format` on
    /// this thread (``ExportRowChunk``'s design note); returns the rows `format` counted.
    func readOnOneThread(
        _ sql: String, _ values: [SQLValue], columns: Int, withState: Bool, format: ([UInt8]) throws -> Int64
    ) throws -> Int64 {
        let connection = connection
        let reader = BackgroundReader<[UInt8]>(capacity: 4, name: "Exporter.reader") { send in
            try connection.transaction(.deferred) { db in
                let statement = try db.makeStatement(sql)
                statement.bind(values)
                var delivery = withState ? try DeliveryStates(db) : nil
                let chunk = ExportRowChunk.Builder(
                    textual: ExportRowChunk.textualColumns(of: statement, count: columns))
                var stopped = false
                try statement.forEachRow { row in
                    chunk.append(row, state: try delivery?.state(for: row, rowidColumn: columns))
                    guard chunk.count >= ExportRowChunk.bytes else { return true }
                    stopped = !send(chunk.take())
                    return !stopped
                }
                if !stopped, chunk.count > 0 { _ = send(chunk.take()) }
            }
        }
        defer { reader.stop() }
        var rows: Int64 = 0
        try ReportError.wrap {
            while let chunk = try reader.next() { rows += try format(chunk) }
        }
        return rows
    }

    /// A float as the shortest text that reads back as the same value (`12.5`, `0.1`).
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) + ".0" : "\(value)"
    }
}
