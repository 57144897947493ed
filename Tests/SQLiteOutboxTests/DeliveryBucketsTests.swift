import Foundation
import PaywallCore
import PaywallSQLite
import PaywallTestSupport
import Testing

@testable import PaywallStore

/// `deliveries` and its trigger-kept `report_delivery_buckets`, and `due` on a long delivery history.
struct DeliveryBucketsTests {
    let directory = TemporaryDirectory()

    /// `count` impressions 5 minutes apart (three per 15-minute bucket), ids from `first`.
    func spread(_ count: Int, first: Int = 0) -> [EventRecord] {
        (first..<first + count).map { index in
            var event = impression(index, base: 0)
            event.occurredAt = 1_764_400_000_000 + Int64(index) * 300_000
            return event
        }
    }

    /// The buckets (non-zero) next to a direct count of `deliveries`, and the stats' delivered count.
    func expectBucketsMatch(_ store: EventStore, _ step: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let db = store.connection
        let buckets = try db.all(
            """
            SELECT bucket, delivered, by_device FROM report_delivery_buckets WHERE delivered != 0 ORDER BY bucket
            """
        ) { [$0.int64(at: 0), $0.int64(at: 1), $0.int64(at: 2)] }
        let direct = try db.all(
            "SELECT occurred_at / 900000, count(*), sum(by_device) FROM deliveries GROUP BY 1 ORDER BY 1"
        ) {
            [$0.int64(at: 0), $0.int64(at: 1), $0.int64(at: 2)]
        }
        #expect(
            try db.scalar("SELECT count(*) FROM report_delivery_buckets WHERE delivered = 0 AND by_device != 0")?.int64
                == 0,
            "\(step)", sourceLocation: sourceLocation)
        #expect(buckets == direct, "\(step)", sourceLocation: sourceLocation)
        let delivered = try db.scalar("SELECT count(*) FROM deliveries")?.int64 ?? -1
        #expect(Int64(try store.stats().outboxDelivered) == delivered, "\(step)", sourceLocation: sourceLocation)
    }

    @Test func bucketsEqualADirectCountThroughDeliveriesDeadLettersRequeuesAndRedeliveries() throws {
        // Given 60 impressions recorded and 12 imported as already forwarded, over 24 buckets
        let store = try EventStore(path: directory.path("events.sqlite"), now: .constant(1_764_500_000_000))
        let recorded = spread(60)
        let imported = spread(12, first: 60)
        try store.insert(recorded)
        try store.insert(imported, forwarded: true)
        try expectBucketsMatch(store, "after the import")
        #expect(try deliveryStates(store.connection) == ["pending": 60, "delivered": 12])
        let outbox = SQLiteOutbox(store: store)
        let ids = recorded.map(\.id)
        // When some are delivered, delivered again with others, dead-lettered, requeued and redelivered
        try outbox.markDelivered(Array(ids[0..<20]), at: 1)
        try expectBucketsMatch(store, "after 20 deliveries")
        try outbox.markDelivered(Array(ids[10..<25]) + imported.map(\.id), at: 2)
        try expectBucketsMatch(store, "after delivering delivered ones again")
        try outbox.deadLetter(Array(ids[20..<40]), status: 400, reason: "refused", at: 3)
        try expectBucketsMatch(store, "after dead letters")
        #expect(try outbox.requeueDeadLetters(now: 4) == 15)
        try outbox.markDelivered(Array(ids[25..<40]), at: 5)
        try expectBucketsMatch(store, "after redelivering the requeued")
        // and every event is inserted again, as a retried import or recorder batch would
        #expect(try store.insert(recorded + imported) == 0)
        #expect(try store.insert(imported, forwarded: true) == 0)
        // and one delivery is taken back by hand (the soak's `undeliver`)
        try store.connection.run("DELETE FROM deliveries WHERE event_rowid = (SELECT min(event_rowid) FROM deliveries)")
        // Then the buckets still equal a direct count, and each impression is in exactly one place
        try expectBucketsMatch(store, "after re-inserts and a removal")
        #expect(try deliveryStates(store.connection) == ["pending": 20, "delivered": 51])
        #expect(try store.connection.scalar("SELECT delivered_at FROM deliveries WHERE event_rowid = 30")?.int64 == 5)
    }

    @Test func deviceDeliveriesAreCountedApartThroughUpsertsAndRemovals() throws {
        // Given 30 impressions: 12 uploaded as forwarded by the device, 18 pending
        let store = try EventStore(path: directory.path("device.sqlite"), now: .constant(1_764_500_000_000))
        let all = spread(30)
        try store.insert(Array(all[0..<18]))
        let byDevice = Array(all[18..<30])
        try store.insert(byDevice, forwarded: true)
        func rowid(_ event: EventRecord) throws -> Int64 {
            try #require(
                try store.connection.scalar("SELECT rowid FROM events WHERE id = ?1", [.text(event.id.uuidString)])?
                    .int64)
        }
        try store.connection.run("DELETE FROM deliveries")
        let rowids = try byDevice.map(rowid)
        try store.connection.transaction(.immediate) { db in
            for (event, rowid) in zip(byDevice, rowids) {
                try Deliveries.record(
                    db, eventRowid: rowid, occurredAt: event.occurredAt, deliveredAt: 1, byDevice: true)
            }
        }
        try expectBucketsMatch(store, "after device deliveries")
        #expect(try store.connection.scalar("SELECT sum(by_device) FROM report_delivery_buckets")?.int64 == 12)
        // When some of this store's own deliveries happen, one device delivery is recorded again as this
        // store's (an upsert that flips by_device), and one is removed
        try SQLiteOutbox(store: store).markDelivered(all[0..<6].map(\.id), at: 2)
        let first = try rowid(byDevice[0])
        try store.connection.transaction(.immediate) { db in
            try Deliveries.record(
                db, eventRowid: first, occurredAt: byDevice[0].occurredAt, deliveredAt: 3, byDevice: false)
        }
        try store.connection.run(
            "DELETE FROM deliveries WHERE by_device = 1 AND event_rowid = (SELECT max(event_rowid) FROM deliveries)")
        // Then the buckets still equal a direct count: 10 by the device, 7 by this store
        try expectBucketsMatch(store, "after upserts and a removal")
        #expect(try store.connection.scalar("SELECT sum(by_device) FROM report_delivery_buckets")?.int64 == 10)
        #expect(try store.stats().outboxForwardedByDevice == 10 && store.stats().outboxDelivered == 17)
    }

    @Test func theMigrationCountsDeviceDeliveriesOfAnExistingStore() throws {
        // Given a store made by the program before store/delivery-buckets-by-device, with 4 device deliveries
        let path = directory.path("before.sqlite")
        let before = Schema.storeMigrations.migrations.prefix { $0.name != "delivery-buckets-by-device" }
        #expect(
            before.count < Schema.storeMigrations.migrations.count,
            "the migration is in the list (later ones may follow)")
        let events = spread(9)
        do {
            let old = try Migrator(
                [MigrationGroup(owner: "store", Array(before))], legacy: Schema.legacyIdentifiers,
                identity: Schema.identity
            ).open(path: path)
            for (index, event) in events.enumerated() {
                try old.run(
                    """
                    INSERT INTO events (id, name, occurred_at, recorded_at, user_id, catalog_version, pw_id, source)
                    VALUES (?1, 'paywall_shown', ?2, 0, 'u', 1, ?3, 'onboarding')
                    """, [.text(event.id.uuidString), .integer(event.occurredAt), .text(UUID().uuidString)])
                if index < 6 {
                    try old.run(
                        "INSERT INTO deliveries (event_rowid, occurred_at, delivered_at, by_device) VALUES (?1, ?2, 1, ?3)",
                        [.integer(Int64(index + 1)), .integer(event.occurredAt), .integer(index < 4 ? 1 : 0)])
                }
            }
        }
        // When the current program opens it
        let store = try EventStore(path: path, now: .constant(1_764_500_000_000))
        // Then the buckets count the device deliveries, and the new triggers keep them exact
        try expectBucketsMatch(store, "after the migration")
        #expect(try store.connection.scalar("SELECT sum(by_device) FROM report_delivery_buckets")?.int64 == 4)
        try store.connection.run("UPDATE deliveries SET by_device = 1 WHERE by_device = 0")
        try expectBucketsMatch(store, "after flipping the other deliveries")
        #expect(try store.connection.scalar("SELECT sum(by_device) FROM report_delivery_buckets")?.int64 == 6)
    }

    @Test func dueReadsOnlyTheOutboxHoweverLongTheDeliveryHistory() throws {
        // Given 100,000 delivered impressions, then 10 pending ones of which the first 3 wait for a retry
        let store = try EventStore(path: directory.path("history.sqlite"), now: .constant(1_764_500_000_000))
        try store.insert(impressions(100_000), forwarded: true)
        let pending = (100_000..<100_010).map { impression($0, base: 1_764_400_000_000) }
        try store.insert(pending)
        let outbox = SQLiteOutbox(store: store)
        try outbox.scheduleRetry(pending.prefix(3).map(\.id), attempts: 1, notBefore: 9_000)
        // When the forwarder asks for 5 due impressions
        let due = try outbox.due(now: 1_000, limit: 5)
        // Then it gets the 5 oldest due ones, in order, and nothing delivered
        #expect(due.map(\.event.id) == pending[3..<8].map(\.id))
        #expect(try outbox.nextAttemptTime() == 0)
        #expect(try store.stats().outboxDelivered == 100_000)
        // and the query walks the outbox in rowid order, finding each event by rowid: no scan of
        // the events or the deliveries, no sort of the backlog
        let plan = try store.connection.all("EXPLAIN QUERY PLAN " + SQLiteOutbox.dueSQL, [.integer(0), .integer(5)]) {
            $0.string(at: 3) ?? ""
        }
        #expect(plan.contains("SCAN outbox"), "\(plan)")
        #expect(plan.contains("SEARCH e USING INTEGER PRIMARY KEY (rowid=?)"), "\(plan)")
        #expect(!plan.contains { $0.contains("deliveries") || $0.hasPrefix("SCAN e") }, "\(plan)")
        #expect(plan.filter { $0.contains("TEMP B-TREE") }.count == 1, "only the ≤ limit result is sorted: \(plan)")
    }
}
