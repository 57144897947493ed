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

    /// The export of `filter` with ranges of `rangeRowids` rowids (`nil`: one reader).
    static func export(
        _ connection: Connection, _ filter: ExportFilter = ExportFilter(), rangeRowids: Int64?, to path: String
    ) throws -> Data {
        var exporter = Exporter(connection: connection)
        exporter.splitRangeRowids = rangeRowids
        try exporter.export(.events, filter: filter, toPath: path)
        return try Data(contentsOf: URL(fileURLWithPath: path))
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
        let values = try Exporter(connection: store.connection).filterValues(ExportFilter())
        let columns = EventColumn.record.count
        func split(_ connection: Connection) -> ExportSplitRead? {
            ExportSplitRead(connection: connection, values: values, columns: columns, rangeRowids: 64)
        }
        // A store file this process can write: two readers, and what they write is the export
        let reading = try #require(split(store.connection))
        let descriptor = open(folder.path("split.csv"), O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        var writer = CSVWriter(descriptor: descriptor, path: "split.csv")
        let names = EventColumn.record.map(\.columnName) + ["delivery_state"]
        try writer.writeRow(Exporter.header(.events, names).map { .text($0) })
        let rows = try reading.write(
            iso: EventColumn.record.map { Exporter.isoColumns.contains($0.columnName) }, into: &writer)
        try writer.flush()
        close(descriptor)
        #expect(rows == (try store.connection.scalar("SELECT count(*) FROM events")?.int64))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: folder.path("split.csv")))
                == (try Self.export(store.connection, rangeRowids: nil, to: folder.path("one.csv"))))
        // A store opened read-only (nothing may be created beside it): one reader, same bytes
        let readOnly = try Connection(path: folder.path("db"), options: .readOnly)
        #expect(split(readOnly) == nil)
        #expect(
            try Self.export(readOnly, rangeRowids: 64, to: folder.path("r.csv"))
                == (try Self.export(store.connection, rangeRowids: nil, to: folder.path("one.csv"))))
        // A store in memory (no second connection sees it): one reader
        #expect(split(try Connection(path: ":memory:", options: OpenOptions(wal: false))) == nil)
        // A store whose write lock another connection holds longer than the export waits for it
        // (100 ms, whatever the connection's own busy timeout: ten minutes here, so a wait for that
        // timeout would hold this test up): one reader
        var patient = OpenOptions(create: false)
        patient.busyTimeoutMilliseconds = 600_000
        let exporting = try Connection(path: folder.path("db"), options: patient)
        let holder = try Connection(path: folder.path("db"), options: OpenOptions(create: false))
        try holder.execute("BEGIN IMMEDIATE")
        #expect(split(exporting) == nil)
        let whileHeld = try Self.export(exporting, rangeRowids: 64, to: folder.path("a.csv"))
        try holder.execute("ROLLBACK")
        #expect(whileHeld == (try Self.export(readOnly, rangeRowids: 64, to: folder.path("b.csv"))))
    }

    @Test func commitsDuringASplitExportAreSeenAllOrNotAtAll() throws {
        // Given a store of 12,000 events and a writer that, in each transaction, deletes ten events
        // anywhere and adds ten new ones at the end (so every committed state holds 12,000)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("db")
        let store = try EventStore(path: path, now: .constant(1_793_600_000_000))
        try store.insert(DeviceEvents.presentations(6_000, user: "u1", start: 1_793_500_000_000))
        let writer = try Connection(path: path, options: OpenOptions(create: false))
        let stop = Lock(false)
        let commits = Lock(0)
        let ended = DispatchSemaphore(value: 0)
        let churn = Thread {
            defer { ended.signal() }
            while !stop.withLock({ $0 }) {
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
            stop.withLock { $0 = true }
            ended.wait()
        }
        #expect(try Eventually.holdsBlocking { commits.withLock { $0 } > 0 })
        let before = commits.withLock { $0 }
        // When it is exported by two readers with small ranges, five times while the writer works
        for round in 1...5 {
            let text = try String(
                decoding: try Self.export(store.connection, rangeRowids: 16, to: folder.path("e.csv")), as: UTF8.self)
            let ids = text.components(separatedBy: "\r\n").dropFirst().dropLast().map { $0.prefix(36) }
            // Then each export holds one committed state: 12,000 events, each once, in rowid order
            #expect(ids.count == 12_000, "round \(round)")
            #expect(Set(ids).count == ids.count, "round \(round)")
        }
        // (and the writer committed meanwhile, so there was something to see)
        #expect(commits.withLock { $0 } > before)
    }

    @Test func aFailedWriteStopsBothReadersAndTheNextExportWorks() throws {
        // Given a store and a destination that takes no byte (/dev/full: every write fails)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try Self.makeStore(at: folder.path("db"))
        var exporter = Exporter(connection: store.connection)
        exporter.splitRangeRowids = 16
        // When exporting there: a clear error, and the call returns (the readers stopped)
        #expect(throws: ReportError.self) { try exporter.export(.events, toPath: "/dev/full") }
        // Then the store is not held: a writer commits, and the next export is whole
        try store.connection.execute("DELETE FROM events WHERE seq = (SELECT max(seq) FROM events)")
        let rows = try exporter.export(.events, toPath: folder.path("e.csv"))
        #expect(rows == (try store.connection.scalar("SELECT count(*) FROM events")?.int64))
    }
}
