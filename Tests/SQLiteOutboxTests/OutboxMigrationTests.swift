import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// Migration 6 (`outbox-keyed-by-event-rowid`) on real files of versions 3 (the last shipped) and 5
/// (the one before it), written as those versions did.
struct OutboxMigrationTests {
    let directory = TemporaryDirectory()
    static let base: Int64 = 1_764_400_000_000

    /// Occurred-at of legacy impression `index`: 20 minutes apart, so each has its own 15-minute bucket.
    static func at(_ index: Int) -> Int64 { base + Int64(index) * 1_200_000 }

    /// A store at `version` (3 to 5: the outbox layout of version 1): a close (rowid 1) then six
    /// impressions with the outbox rows and dead letters those versions wrote for them.
    func legacyStore(at path: String, version: Int = 3) throws {
        let old = try LegacyStore.create(at: path, version: version, from: ReportSchema.migrator)
        try old.transaction { db in
            let insert = """
                INSERT INTO events (id, name, occurred_at, recorded_at, user_id, catalog_version, pw_id, source)
                VALUES (?1, ?2, ?3, ?3, 'u', 1, ?1, 'onboarding')
                """
            try db.run(insert, [.text(UUID().uuidString), .text("paywall_closed"), .integer(Self.base)])
            let outbox: [(state: String, attempts: Int64, next: Int64, deliveredAt: Int64?)] = [
                ("pending", 2, 5_000, nil), ("delivered", 1, 0, 700), ("delivered", 0, 0, 800),
                ("dead", 0, 0, nil), ("dead", 0, 0, nil), ("pending", 0, 0, nil),
            ]
            for (index, row) in outbox.enumerated() {
                let id = impression(index, base: 0).id.uuidString
                try db.run(insert, [.text(id), .text("paywall_shown"), .integer(Self.at(index))])
                try db.run(
                    """
                    INSERT INTO outbox (event_id, occurred_at, state, attempts, next_attempt_at, delivered_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(id), .integer(Self.at(index)), .text(row.state), .integer(row.attempts),
                        .integer(row.next),
                        row.deliveredAt.map(SQLValue.integer) ?? .null,
                    ])
            }
            let dead = { (index: Int, reason: String, deadAt: Int64, requeuedAt: Int64?) in
                _ = try db.run(
                    "INSERT INTO dead_letters (event_id, status, reason, dead_at, requeued_at) VALUES (?, 401, ?, ?, ?)",
                    [
                        .text(impression(index, base: 0).id.uuidString), .text(reason), .integer(deadAt),
                        requeuedAt.map(SQLValue.integer) ?? .null,
                    ])
            }
            // Impression 3: an old requeued refusal, then an open one. Impression 4: dead, but its
            // only record was requeued (damage no version-3 code path makes; the migration must keep it dead).
            try dead(3, "first refusal", 500, 550)
            try dead(3, "bad key", 600, nil)
            try dead(4, "old refusal", 400, 450)
        }
        #expect(try old.scalar("PRAGMA user_version")?.int64 == Int64(version))
    }

    @Test(arguments: [3, 5])
    func convertsPendingDeliveredAndDeadRowsOfAnOlderStore(version: Int) throws {
        // Given a store of an older version with pending, delivered and dead impressions
        let path = directory.path("legacy.sqlite")
        try legacyStore(at: path, version: version)
        // When the current program opens it
        #expect(Schema.legacyIdentifiers.firstIndex(of: "store/outbox-keyed-by-event-rowid") == 5)
        let store = try EventStore(path: path, now: .constant(Self.base))
        let db = store.connection
        // Then pending rows are in the outbox by events rowid with their backoff, delivered ones in
        // deliveries with their time, dead ones leave the outbox with an open dead letter each
        let outbox = try db.all(
            "SELECT event_rowid, occurred_at, attempts, next_attempt_at FROM outbox ORDER BY event_rowid"
        ) {
            [$0.int64(at: 0), $0.int64(at: 1), $0.int64(at: 2), $0.int64(at: 3)]
        }
        #expect(outbox == [[2, Self.at(0), 2, 5_000], [7, Self.at(5), 0, 0]])
        let deliveries = try db.all(
            "SELECT event_rowid, occurred_at, delivered_at FROM deliveries ORDER BY event_rowid"
        ) {
            [$0.int64(at: 0), $0.int64(at: 1), $0.int64(at: 2)]
        }
        #expect(deliveries == [[3, Self.at(1), 700], [4, Self.at(2), 800]])
        let open = try db.all(
            "SELECT event_id, status, reason FROM dead_letters WHERE requeued_at IS NULL ORDER BY event_id"
        ) {
            "\($0.string(at: 0)!) \($0.int64(at: 1)) \($0.string(at: 2)!)"
        }
        #expect(
            open == [
                impression(3, base: 0).id.uuidString + " 401 bad key",
                impression(4, base: 0).id.uuidString
                    + " 0 dead in the outbox without an open dead letter (kept by migration 6)",
            ])
        #expect(try db.scalar("SELECT count(*) FROM dead_letters")?.int64 == 4)
        // and the delivery buckets are filled, the old indexes gone, the file intact
        let buckets = try db.all("SELECT bucket, delivered FROM report_delivery_buckets ORDER BY bucket") {
            [$0.int64(at: 0), $0.int64(at: 1)]
        }
        #expect(buckets == [[Self.at(1) / 900_000, 1], [Self.at(2) / 900_000, 1]])
        // (deliveries_by_device, the partial index of store/deliveries-by-device, is the only one.)
        #expect(
            try db.all(
                """
                SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('outbox', 'deliveries')
                  AND name != 'deliveries_by_device'
                """
            ) {
                $0.string(at: 0) ?? ""
            }.isEmpty)
        #expect(try db.scalar("PRAGMA integrity_check")?.string == "ok")
        // and the forwarder and stats work on the converted store
        let forwarder = SQLiteOutbox(store: store)
        #expect(try forwarder.due(now: 4_999, limit: 10).map(\.event.id) == [impression(5, base: 0).id])
        #expect(try forwarder.due(now: 5_000, limit: 10).map(\.attempts) == [2, 0])
        #expect(try forwarder.nextAttemptTime() == 0)
        let stats = try store.stats()
        // stats counts the open dead letters; the requeued ones are history (hardening item 17)
        #expect(
            [
                stats.outboxPending, stats.outboxDelivered, stats.outboxDead, stats.deadLetters,
                stats.deadLettersRequeued,
            ]
                == [Int]([2, 2, 2, 2, 2]))
        #expect(try forwarder.requeueDeadLetters(now: 9_000) == 2)
        #expect(try deliveryStates(db) == ["pending": 4, "delivered": 2])
    }

    @Test func statsReadAVersion3StoreOpenedReadOnlyWithoutMigratingIt() throws {
        // Given a version-3 store, opened read-only (no migration runs)
        let path = directory.path("legacy.sqlite")
        try legacyStore(at: path)
        let reader = try EventStore(path: path, options: .readOnly, now: .constant(Self.base))
        // When its statistics are read
        let stats = try reader.stats()
        // Then the delivery states come from the old layout, and the file stays at version 3
        #expect([stats.outboxPending, stats.outboxDelivered, stats.outboxDead] == [Int]([2, 2, 2]))
        #expect(stats.eventsByName == ["paywall_closed": 1, "paywall_shown": 6])
        #expect(try reader.connection.scalar("PRAGMA user_version")?.int64 == 3)
    }
}
