import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// `import` of another store's file keeps each impression's delivery state (shards merged into one
/// report store): delivered or forwarded by the device there is delivered here, dead-lettered there is
/// dead-lettered here, and only what is pending there is queued again. Real files on both sides.
struct ImportDeliveryStateTests {
    let directory = TemporaryDirectory()
    static let deadAt: Int64 = Fixtures.baseTime + 7_000
    static let deliveredAt: Int64 = Fixtures.baseTime + 6_000
    static let importedAt: Int64 = Fixtures.baseTime + 99_000

    /// Eight impressions (random ids, so batches are not in id order) and a close for each, in a
    /// source store: 0–1 delivered by its forwarder, 2 dead-lettered, 3–4 forwarded by the device
    /// (a collector's `X-Paywall-Forwarding: device`), 5–7 pending.
    func source(named name: String = "source.sqlite") throws -> (path: String, shown: [EventRecord]) {
        let path = directory.path(name)
        let store = try EventStore(path: path, now: .constant(Self.deliveredAt))
        let events = (0..<8).map { Self.impression($0) }
        let closes = (0..<8).map { index -> EventRecord in
            var close = Fixtures.event(index * 4 + 3)
            close.id = UUID()
            return close
        }
        try store.insert(Array(events[0..<3]) + Array(events[5..<8]) + closes)
        _ = try store.commitGroup([
            CommitPart(events: Array(events[3..<5]), quarantine: [], impressions: .forwardedByDevice)
        ])
        let outbox = SQLiteOutbox(store: store)
        try outbox.markDelivered([events[0].id, events[1].id], at: Self.deliveredAt)
        try outbox.deadLetter(
            [events[2].id], status: 400, reason: "RevenueCat refused it: invalid product", at: Self.deadAt)
        return (path, events)
    }

    static func impression(_ index: Int) -> EventRecord {
        var event = Fixtures.event(index * 4, name: .paywallShown)
        event.id = UUID()
        return event
    }

    /// Each impression's state in `store`: pending, delivered, by device, or dead (with status and
    /// reason), and how many places hold it (exactly one for every stored impression).
    func states(_ connection: Connection) throws -> [String: String] {
        let rows = try connection.all(
            """
            SELECT e.id,
              (SELECT count(*) FROM outbox WHERE event_rowid = e.rowid)
              + (SELECT count(*) FROM deliveries WHERE event_rowid = e.rowid)
              + (SELECT count(*) > 0 FROM dead_letters WHERE event_id = e.id AND requeued_at IS NULL),
              CASE WHEN EXISTS (SELECT 1 FROM outbox WHERE event_rowid = e.rowid) THEN 'pending'
                   WHEN EXISTS (SELECT 1 FROM deliveries WHERE event_rowid = e.rowid AND by_device = 1)
                     THEN 'device@' || (SELECT delivered_at FROM deliveries WHERE event_rowid = e.rowid)
                   WHEN EXISTS (SELECT 1 FROM deliveries WHERE event_rowid = e.rowid)
                     THEN 'delivered@' || (SELECT delivered_at FROM deliveries WHERE event_rowid = e.rowid)
                   ELSE (SELECT 'dead ' || status || ' ' || reason || '@' || dead_at FROM dead_letters
                         WHERE event_id = e.id AND requeued_at IS NULL) END
            FROM events AS e WHERE e.name = 'paywall_shown'
            """
        ) { ($0.string(at: 0) ?? "", $0.int64(at: 1), $0.string(at: 2) ?? "none") }
        for row in rows { #expect(row.1 == 1, "impression \(row.0) is in \(row.1) delivery states") }
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.2) })
    }

    /// The states of `shown` after the import (`own`: how the source's own deliveries come out:
    /// `device`, or `delivered` in the source itself).
    func expected(_ shown: [EventRecord], pending: String = "pending", own: String = "device") -> [String: String] {
        var states: [String: String] = [:]
        for (index, event) in shown.enumerated() {
            states[event.id.uuidString] =
                switch index {
                // (the source is no collector's store: what its forwarder delivered, the device forwarded)
                case 0, 1: "\(own)@\(Self.deliveredAt)"
                case 2: "dead 400 RevenueCat refused it: invalid product@\(Self.deadAt)"
                case 3, 4: "device@\(Self.deliveredAt)"
                default: pending
                }
        }
        return states
    }

    @Test func aNewStoreTakesEveryImpressionsStateFromTheSource() throws {
        // Given a source store with impressions in every delivery state
        let source = try source()
        #expect(try states(Connection(path: source.path)) == expected(source.shown, own: "delivered"))
        // When it is imported into an empty store, three rows per transaction
        let store = try EventStore(path: directory.path("merged.sqlite"), now: .constant(Self.importedAt))
        let result = try Importer(store: store, options: ImportOptions(batchSize: 3)).importFiles([
            source.path
        ])
        // Then every event is stored once and each impression keeps its state, times and dead letter
        #expect(result == ImportResult(imported: 16))
        #expect(try states(store.connection) == expected(source.shown))
        #expect(try store.stats().outboxPending == 3)
        // And the report's counters agree: 4 deliveries and 1 dead impression in their buckets
        #expect(try store.connection.scalar("SELECT sum(delivered) FROM report_delivery_buckets")?.int64 == 4)
        #expect(try store.connection.scalar("SELECT sum(dead) FROM report_dead_buckets")?.int64 == 1)
        #expect(try store.stats().outboxForwardedByDevice == 4)
        // And importing it again changes nothing
        let again = try Importer(store: store, options: ImportOptions(batchSize: 3)).importFiles([
            source.path
        ])
        #expect(again == ImportResult(duplicates: 16))
        #expect(try states(store.connection) == expected(source.shown))
        #expect(try store.connection.scalar("SELECT count(*) FROM dead_letters")?.int64 == 1)
    }

    @Test func aPendingDuplicateTakesTheSourcesOutcomeAndASettledOneKeepsItsOwn() throws {
        // Given a store that already holds the same impressions: all pending but 5 (delivered here
        // earlier) and 6 (dead here)
        let source = try source()
        let store = try EventStore(path: directory.path("merged.sqlite"), now: .constant(Self.importedAt))
        try store.insert(source.shown)
        let outbox = SQLiteOutbox(store: store)
        try outbox.markDelivered([source.shown[5].id], at: Self.importedAt)
        try outbox.deadLetter([source.shown[6].id], status: 422, reason: "refused here", at: Self.importedAt)
        // When the source is imported
        let result = try Importer(store: store).importFiles([source.path])
        // Then the pending ones took the source's delivery or dead letter; 5 and 6 kept their own
        #expect(result == ImportResult(imported: 8, duplicates: 8))
        var wanted = expected(source.shown)
        wanted[source.shown[5].id.uuidString] = "delivered@\(Self.importedAt)"
        wanted[source.shown[6].id.uuidString] = "dead 422 refused here@\(Self.importedAt)"
        #expect(try states(store.connection) == wanted)
        #expect(try store.connection.scalar("SELECT sum(delivered) FROM report_delivery_buckets")?.int64 == 5)
        #expect(try store.connection.scalar("SELECT sum(dead) FROM report_dead_buckets")?.int64 == 2)
    }

    @Test func noForwardMarksOnlyTheSourcesPendingImpressionsDelivered() throws {
        let source = try source()
        let store = try EventStore(path: directory.path("merged.sqlite"), now: .constant(Self.importedAt))
        _ = try Importer(store: store, options: ImportOptions(forward: false)).importFiles([source.path])
        #expect(try states(store.connection) == expected(source.shown, pending: "delivered@\(Self.importedAt)"))
        #expect(try store.stats().outboxPending == 0)
    }

    @Test func anImpressionAnInstallHandedToAForwardingCollectorIsPendingInTheImportingStore() throws {
        // Given an install's store whose uploader handed everything to a collector that forwards
        // (`X-Paywall-Forwarding: collector`): its impressions left the outbox as `to_collector`
        let path = directory.path("install.sqlite")
        let install = try EventStore(path: path, now: .constant(Self.deliveredAt))
        let shown = (0..<4).map { Self.impression($0) }
        try install.insert(shown)
        try SQLiteUploadQueue(store: install).acknowledge(through: 4, handOffImpressions: true, at: Self.deliveredAt)
        #expect(try install.connection.scalar("SELECT count(*) FROM deliveries WHERE to_collector = 1")?.int64 == 4)
        // When the install's file is imported (the importing store takes the collector's place)
        let store = try EventStore(path: directory.path("merged.sqlite"), now: .constant(Self.importedAt))
        _ = try Importer(store: store).importFiles([path])
        // Then they are pending here: nobody delivered them to RevenueCat yet
        #expect(
            try states(store.connection)
                == Dictionary(uniqueKeysWithValues: shown.map { ($0.id.uuidString, "pending") }))
    }

    @Test func twoShardsMergeIntoOneStoreWithEveryStateKept() throws {
        // Given two shards (as two collectors behind a load balancer write them)
        let first = try source(named: "shard-1.sqlite")
        let second = try source(named: "shard-2.sqlite")
        // When both are imported into one report store
        let store = try EventStore(path: directory.path("report.sqlite"), now: .constant(Self.importedAt))
        let result = try Importer(store: store).importFiles([first.path, second.path])
        // Then it holds the union, each impression in the state its shard gave it
        #expect(result == ImportResult(imported: 32))
        #expect(try states(store.connection) == expected(first.shown).merging(expected(second.shown)) { $1 })
        #expect(try store.stats().outboxPending == 6)
    }
}
