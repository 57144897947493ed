import Foundation
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// The events export read by two threads (`ExportSplitRead`) against the same export read by one.
struct ExportSplitReadTests {
    /// A store of 6,000 presentations (12,000 events) from three users, with every delivery state:
    /// pending, delivered, forwarded by the device, dead, requeued; and rowid gaps (every seventh
    /// event deleted, the first 100 too).
    static func makeStore(at path: String) throws -> EventStore {
        let store = try EventStore(path: path, now: .constant(1_793_600_000_000))
        for user in ["u1", "u2", "=u3"] {
            try store.insert(DeviceEvents.presentations(2_000, user: user, start: 1_793_500_000_000))
        }
        let outbox = SQLiteOutbox(connection: store.connection)
        let impressions = try store.connection.all(
            "SELECT id FROM events WHERE name = 'paywall_shown' ORDER BY seq"
        ) { try #require(UUID(uuidString: $0.string(at: 0) ?? "")) }
        try outbox.markDelivered(Array(impressions[0..<1_500]), at: 1_793_600_000_000)
        try outbox.deadLetter(Array(impressions[1_500..<2_500]), status: 400, reason: "refused", at: 1_793_600_000_000)
        #expect(try outbox.requeueDeadLetters(now: 1_793_600_000_000) == 1_000)
        try outbox.deadLetter(
            Array(impressions[2_500..<3_500]), status: 413, reason: "too large", at: 1_793_600_000_000)
        try store.connection.execute(
            """
            UPDATE deliveries SET by_device = 1 WHERE event_rowid % 3 = 0;
            DELETE FROM events WHERE seq % 7 = 0 OR seq <= 100;
            """)
        return store
    }

    /// The events export of `filter` (CSV, or NDJSON when `ndjson`) with ranges of `rangeRowids`
    /// rowids (`nil`: one reader).
    static func export(
        _ connection: Connection, _ filter: ExportFilter = ExportFilter(), rangeRowids: Int64?, to path: String,
        ndjson: Bool = false
    ) throws -> Data {
        var exporter = Exporter(connection: connection)
        exporter.splitRangeRowids = rangeRowids
        if ndjson {
            try exporter.exportEventsNDJSON(filter: filter, toPath: path)
        } else {
            try exporter.export(.events, filter: filter, toPath: path)
        }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Two readers started on `connection` for the whole events export in ranges of `rangeRowids`,
    /// or `nil` where the split is not taken.
    static func split(_ connection: Connection, rangeRowids: Int64) throws -> ExportSplitRead? {
        let values = try Exporter(connection: connection).filterValues(ExportFilter())
        return ExportSplitRead(
            connection: connection, sql: Exporter.eventsRangeSQL, values: values, columns: EventColumn.record.count,
            withState: true, rangeRowids: rangeRowids)
    }

    /// Writes what `reading` reads to `path` as the events export does (header first); returns the rows.
    static func write(_ reading: ExportSplitRead, to path: String) throws -> Int64 {
        let descriptor = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        defer { close(descriptor) }
        var writer = CSVWriter(descriptor: descriptor, path: path)
        let names = EventColumn.record.map(\.columnName) + ["delivery_state"]
        try writer.writeRow(Exporter.header(.events, names).map { .text($0) })
        let iso = EventColumn.record.map { Exporter.isoColumns.contains($0.columnName) }
        let rows = try reading.write { chunk in
            try ExportRowChunk.write(
                chunk, columns: EventColumn.record.count, withState: true, iso: iso, into: &writer)
        }
        try writer.flush()
        return rows
    }

    @Test func twoReadersWriteTheBytesOfOneWhateverTheRangesAndTheFilter() throws {
        // Given a store with every delivery state and rowid gaps
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try Self.makeStore(at: folder.path("db"))
        let filters = [
            ExportFilter(),
            ExportFilter(names: ["paywall_shown"]),
            ExportFilter(from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-01")),
            { () -> ExportFilter in
                var filter = ExportFilter()
                filter.users = ["u2", "=u3"]
                return filter
            }(),
        ]
        for filter in filters {
            // When it is exported by one reader and by two with ranges of several sizes
            let one = try Self.export(store.connection, filter, rangeRowids: nil, to: folder.path("one.csv"))
            for rangeRowids: Int64 in [1, 7, 1_000, 1_024, 100_000] {
                let two = try Self.export(
                    store.connection, filter, rangeRowids: rangeRowids, to: folder.path("two.csv"))
                // Then the bytes are the same
                #expect(two == one, "ranges of \(rangeRowids), filter \(filter)")
            }
            #expect(one.count > 100)
        }
        // and the states are all there (the single reader's own test holds their meaning)
        let text = String(
            decoding: try Self.export(store.connection, rangeRowids: 7, to: folder.path("all.csv")), as: UTF8.self)
        for state in [",pending\r\n", ",delivered\r\n", ",forwarded_by_device\r\n", ",dead\r\n"] {
            #expect(text.contains(state), "\(state)")
        }
    }

    @Test func theSplitIsTakenOnlyWhereTwoReadersCanShareOneSnapshot() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try Self.makeStore(at: folder.path("db"))
        func split(_ connection: Connection) throws -> ExportSplitRead? {
            try Self.split(connection, rangeRowids: 64)
        }
        // A store file this process can write: two readers, and what they write is the export
        let reading = try #require(try split(store.connection))
        let rows = try Self.write(reading, to: folder.path("split.csv"))
        #expect(rows == (try store.connection.scalar("SELECT count(*) FROM events")?.int64))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: folder.path("split.csv")))
                == (try Self.export(store.connection, rangeRowids: nil, to: folder.path("one.csv"))))
        // A store opened read-only (nothing may be created beside it): one reader, same bytes
        let readOnly = try Connection(path: folder.path("db"), options: .readOnly)
        #expect(try split(readOnly) == nil)
        #expect(
            try Self.export(readOnly, rangeRowids: 64, to: folder.path("r.csv"))
                == (try Self.export(store.connection, rangeRowids: nil, to: folder.path("one.csv"))))
        // A store in memory (no second connection sees it): one reader
        #expect(try split(try Connection(path: ":memory:", options: OpenOptions(wal: false))) == nil)
        // A store whose write lock another connection holds longer than the export waits for it
        // (100 ms, whatever the connection's own busy timeout: ten minutes here, so a wait for that
        // timeout would hold this test up): one reader
        var patient = OpenOptions(create: false)
        patient.busyTimeoutMilliseconds = 600_000
        let exporting = try Connection(path: folder.path("db"), options: patient)
        let holder = try Connection(path: folder.path("db"), options: OpenOptions(create: false))
        try holder.execute("BEGIN IMMEDIATE")
        #expect(try split(exporting) == nil)
        let whileHeld = try Self.export(exporting, rangeRowids: 64, to: folder.path("a.csv"))
        try holder.execute("ROLLBACK")
        #expect(whileHeld == (try Self.export(readOnly, rangeRowids: 64, to: folder.path("b.csv"))))
    }

    @Test func commitsDuringASplitExportAreSeenAllOrNotAtAll() throws {
        // Given a store of 12,000 events and a writer that, in each transaction, deletes ten events
        // anywhere and adds ten new ones at the end (so every committed state holds 12,000); it
        // pauses on request, so that the two readers surely get the write lock to begin on
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("db")
        let store = try EventStore(path: path, now: .constant(1_793_600_000_000))
        try store.insert(DeviceEvents.presentations(6_000, user: "u1", start: 1_793_500_000_000))
        let writer = try Connection(path: path, options: OpenOptions(create: false))
        let control = Lock((stop: false, pause: false))
        let commits = Lock(0)
        let (paused, resume, ended) = (
            DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)
        )
        let churn = Thread {
            defer { ended.signal() }
            while true {
                let (stop, pause) = control.withLock { ($0.stop, $0.pause) }
                if stop { return }
                if pause {
                    paused.signal()
                    resume.wait()
                    continue
                }
                let committed: ()? = try? writer.transaction { db in
                    try db.execute(
                        """
                        INSERT INTO events (id, name, occurred_at, recorded_at, user_id, catalog_version, pw_id, source)
                        SELECT lower(hex(randomblob(18))), name, occurred_at, recorded_at, user_id, catalog_version,
                               pw_id, source
                        FROM events ORDER BY random() LIMIT 10;
                        DELETE FROM events WHERE seq IN (SELECT seq FROM events ORDER BY random() LIMIT 10);
                        """)
                }
                if committed != nil { commits.withLock { $0 += 1 } }
            }
        }
        churn.start()
        defer {
            control.withLock { $0.stop = true }
            ended.wait()
        }
        #expect(try Eventually.holdsBlocking { commits.withLock { $0 } > 0 })
        let before = commits.withLock { $0 }
        // When, five times, the two readers begin while the writer waits, then read in ranges of 16
        // rowids (at most 8 ranges ahead of the formatter) while it goes on
        for round in 1...5 {
            control.withLock { $0.pause = true }
            paused.wait()
            let reading = try #require(try Self.split(store.connection, rangeRowids: 16))
            control.withLock { $0.pause = false }
            resume.signal()
            #expect(try Self.write(reading, to: folder.path("e.csv")) == 12_000, "round \(round)")
            let text = try String(contentsOfFile: folder.path("e.csv"), encoding: .utf8)
            let ids = text.components(separatedBy: "\r\n").dropFirst().dropLast().map { $0.prefix(36) }
            // Then each export holds one committed state: 12,000 events, each once
            #expect(ids.count == 12_000, "round \(round)")
            #expect(Set(ids).count == ids.count, "round \(round)")
        }
        // (and the writer committed meanwhile, so there was something to see)
        #expect(commits.withLock { $0 } > before)
    }

    @Test func aReaderThatFailsFailsTheExportAndStopsTheOther() throws {
        // Given a store whose outbox table is gone (each reader's delivery states read it), and
        // nothing else amiss: the two readers begin, and fail on their first range
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try Self.makeStore(at: folder.path("db"))
        try store.connection.execute("DROP TABLE outbox")
        let reading = try #require(try Self.split(store.connection, rangeRowids: 16))
        // When writing the export: the readers' error, and the call returns (both readers ended)
        let error = #expect(throws: ReportError.self) { try Self.write(reading, to: folder.path("e.csv")) }
        #expect("\(String(describing: error))".contains("outbox"))
        // Then nothing holds the store: a writer commits
        try store.connection.execute("DELETE FROM events WHERE seq = (SELECT max(seq) FROM events)")
    }

    @Test func aFailedWriteStopsBothReadersAndTheNextExportWorks() throws {
        // Given a store and a destination that takes no byte (/dev/full: every write fails)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try Self.makeStore(at: folder.path("db"))
        var exporter = Exporter(connection: store.connection)
        exporter.splitRangeRowids = 16
        // When exporting there, as CSV and as NDJSON: a clear error, and the call returns (the readers stopped)
        #expect(throws: ReportError.self) { try exporter.export(.events, toPath: "/dev/full") }
        #expect(throws: ReportError.self) { try exporter.exportEventsNDJSON(toPath: "/dev/full") }
        // Then the store is not held: a writer commits, and the next exports are whole
        try store.connection.execute("DELETE FROM events WHERE seq = (SELECT max(seq) FROM events)")
        let count = try store.connection.scalar("SELECT count(*) FROM events")?.int64
        #expect(try exporter.export(.events, toPath: folder.path("e.csv")) == count)
        #expect(try exporter.exportEventsNDJSON(toPath: folder.path("e.ndjson")) == count)
    }
}
