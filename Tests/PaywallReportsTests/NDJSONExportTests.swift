import Foundation
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// The NDJSON events export, written in Swift from the encoded rows, against the lines SQLite
/// itself builds with `json_patch('{}', json_object(…))` (what the export wrote before, and the
/// form `import` reads): the same bytes for every kind of value, read by one thread or two.
struct NDJSONExportTests {
    /// SQLite's lines for `filter`'s events, one per event in rowid order, each ending in `\n`.
    static func sqliteLines(_ connection: Connection, _ filter: ExportFilter) throws -> Data {
        let members = EventColumn.record.map { column -> String in
            let value =
                column == .openS
                ? "CASE WHEN e.open_s IS NULL THEN NULL ELSE json(printf('%!.17g', e.open_s)) END"
                : "e.\(column.columnName)"
            return "'\(column.columnName)', \(value)"
        }
        let sql = "SELECT json_patch('{}', json_object(\(members.joined(separator: ", ")))) \(Exporter.eventsFilterSQL)"
        let values = try Exporter(connection: connection).filterValues(filter)
        var lines = Data()
        try connection.withDatabase { db in
            let statement = try db.makeStatement(sql)
            statement.bind(values)
            try statement.forEachRow { row in
                row.withUnsafeText(at: 0) { lines.append(contentsOf: $0) }
                lines.append(10)
                return true
            }
        }
        return lines
    }

    /// The NDJSON export of `filter` read in ranges of `rangeRowids` (`nil`: one reader).
    static func export(
        _ connection: Connection, _ filter: ExportFilter = ExportFilter(), rangeRowids: Int64?, to path: String
    ) throws -> Data {
        try ExportSplitReadTests.export(connection, filter, rangeRowids: rangeRowids, to: path, ndjson: true)
    }

    /// Adds events whose values are hard to write as JSON: every ASCII byte (control bytes, `"`,
    /// `\`, DEL), UTF-8 of two, three and four bytes (U+2028 among them), empty texts, `NULL`s,
    /// integers at the type's ends, and `open_s` values whose shortest text and 17-digit text differ.
    static func addAwkwardEvents(to connection: Connection) throws {
        let everyASCII = (1...127).map { String($0) }.joined(separator: ", ")
        let opens = [
            "0.1", "2.5", "123.456", "0.0", "-0.0", "1e20", "1.5e-7", "1e-300", "4.9406564584124654e-324",
            "1.7976931348623157e308", "NULL", "60.000000000000007", "3",
        ]
        for (index, open) in opens.enumerated() {
            let id = String(format: "0192F0A0-0000-7000-8000-%012d", index)
            try connection.execute(
                """
                INSERT INTO events (id, name, occurred_at, recorded_at, user_id, session_id, catalog_version,
                  pw_id, source, offering_id, placement_id, product, result, via, open_s,
                  app_version, build, platform, os_version, sdk_version, locale)
                VALUES ('\(id)', 'paywall_closed', \(index == 0 ? "-9223372036854775808" : "1793500000000"),
                  \(index == 1 ? "9223372036854775807" : "1793500000001"),
                  char(\(everyASCII)), '', 2,
                  '0192F0A0-0000-7000-9000-000000000001', 'caf' || char(233) || ' ' || char(8232) || char(128512),
                  NULL, '', char(0) || 'a' || char(0), char(34, 92, 47), 'x' || char(10) || 'y', \(open),
                  '1.0', NULL, 'ios', char(9), '', 'de_DE')
                """)
        }
    }

    @Test func theLinesAreTheBytesSQLitesJSONGivesWhateverTheValuesTheRangesAndTheFilter() throws {
        // Given a store with every delivery state, rowid gaps, and events with awkward values
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try ExportSplitReadTests.makeStore(at: folder.path("db"))
        try Self.addAwkwardEvents(to: store.connection)
        let filters = [
            ExportFilter(),
            ExportFilter(names: ["paywall_closed"]),
            ExportFilter(from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-01")),
        ]
        for filter in filters {
            let expected = try Self.sqliteLines(store.connection, filter)
            #expect(expected.count > 1_000)
            // When it is exported by one reader and by two with ranges of several sizes
            for rangeRowids: Int64? in [nil, 1, 7, 1_024] {
                let lines = try Self.export(
                    store.connection, filter, rangeRowids: rangeRowids, to: folder.path("e.ndjson"))
                // Then the bytes are SQLite's
                #expect(
                    lines == expected, "ranges of \(rangeRowids.map(String.init) ?? "one reader"), filter \(filter)")
            }
        }
        // and a store opened read-only (one reader) gives them too
        let readOnly = try Connection(path: folder.path("db"), options: .readOnly)
        #expect(
            try Self.export(readOnly, rangeRowids: 64, to: folder.path("r.ndjson"))
                == (try Self.sqliteLines(store.connection, ExportFilter())))
        // and the awkward values are in it, escaped (a sample of what was compared)
        let text = String(
            decoding: try Self.export(store.connection, rangeRowids: 7, to: folder.path("a.ndjson")), as: UTF8.self)
        #expect(text.contains(#""user_id":"\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e"#))
        #expect(
            text.contains(#""product":"\u0000a\u0000","result":"\"\\/","via":"x\ny","open_s":0.10000000000000001,"#))
        #expect(text.contains(#""open_s":1.0e+20,"#))
        #expect(text.contains(#""session_id":"","#))
        #expect(text.contains(#""occurred_at":-9223372036854775808,"#))
    }

    @Test func aStringIsEscapedAsSQLiteEscapesItByteForByte() throws {
        let connection = try Connection(path: ":memory:", options: OpenOptions(wal: false))
        for byte in 0...127 {
            // SQLite's text of the one-character string
            let expected = try #require(
                try connection.scalar("SELECT json_object('a', char(\(byte)))")?.string)
            let folder = TemporaryDirectory()
            defer { folder.remove() }
            let path = folder.path("o")
            let descriptor = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
            var writer = NDJSONWriter(descriptor: descriptor, path: path)
            Array(#"{"a":"#.utf8).withUnsafeBytes { writer.raw($0) }
            [UInt8(byte)].withUnsafeBytes { writer.string($0) }
            writer.byte(UInt8(ascii: "}"))
            try writer.flush()
            close(descriptor)
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(String(decoding: written, as: UTF8.self) == expected, "byte \(byte)")
        }
    }
}
