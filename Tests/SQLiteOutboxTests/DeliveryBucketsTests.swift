import Foundation
import PaywallCore
import PaywallSQLite
@testable import PaywallStore
import PaywallTestSupport
import Testing

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
    func expectBucketsMatch(_ store: EventStore, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let db = store.connection
        let buckets = try db.all("SELECT bucket, delivered FROM report_delivery_buckets WHERE delivered != 0 ORDER BY bucket") {
            [$0.int64(at: 0), $0.int64(at: 1)]
        }
        let direct = try db.all("SELECT occurred_at / 900000, count(*) FROM deliveries GROUP BY 1 ORDER BY 1") {
            [$0.int64(at: 0), $0.int64(at: 1)]
        }
        #expect(buckets == direct, "\(step)", sourceLocation: sourceLocation)
        let delivered = try db.scalar("SELECT count(*) FROM deliveries")?.int64 ?? -1
        #expect(Int64(try store.stats().outboxDelivered) == delivered, "\(step)", sourceLocation: sourceLocation)
    }

    @Test func bucketsEqualADirectCountThroughDeliveriesDeadLettersRequeuesAndRedeliveries() throws {
        // Given 60 impressions recorded and 12 imported as already forwarded, over 24 buckets
        let store = try EventStore(path: directory.path("events.sqlite"), now: .constant(1_764_500_000_000))
        let recorded = spread(60), imported = spread(12, first: 60)
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
