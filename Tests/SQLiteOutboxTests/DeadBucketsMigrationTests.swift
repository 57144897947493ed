import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// Migration 9 (`dead-letter-buckets`) on a store written by version 8.
struct DeadBucketsMigrationTests {
    let directory = TemporaryDirectory()

    @Test func aVersion8StoreIsCountedExactlyAndKeptExactAfterwards() throws {
        // Given a version-8 store with 6 impressions in buckets 0, 0, 1, 2, 2, 5 and a closed event,
        // and dead letters: open (one per impression 0, 2, 3), two open for impression 1,
        // open + requeued for impression 4, requeued only for impression 5, open for the closed
        // event and for an id that is not stored
        let path = directory.path("v8.sqlite")
        let index = try #require(Schema.legacyIdentifiers.firstIndex(of: "store/dead-letter-buckets"))
        #expect(index == 8, "migration 9 is the ninth")
        let old = try LegacyStore.create(at: path, version: index, from: ReportSchema.migrator)
        let offsets: [Int64] = [0, 600_000, 900_000, 1_800_000, 2_000_000, 4_500_000]
        let ids = offsets.indices.map { String(format: "01990000-0000-7000-8000-%012X", $0) }
        let closed = "01990000-0000-7000-8000-0000000000C1"
        let unknown = "01990000-0000-7000-8000-0000000FFFFF"
        try old.transaction { db in
            for (id, offset) in zip(ids + [closed], offsets + [0]) {
                try db.run(
                    """
                    INSERT INTO events (id, name, occurred_at, recorded_at, user_id, catalog_version, pw_id, source)
                    VALUES (?1, ?2, ?3, ?3, 'u', 1, ?1, 'onboarding')
                    """,
                    [
                        .text(id), .text(id == closed ? "paywall_closed" : "paywall_shown"),
                        .integer(firstBucketStart + offset),
                    ])
            }
            let letters: [(String, Int64?)] = [
                (ids[0], nil), (ids[1], nil), (ids[1], nil), (ids[2], nil), (ids[3], nil),
                (ids[4], 7), (ids[4], nil), (ids[5], 7), (closed, nil), (unknown, nil),
            ]
            for (id, requeued) in letters {
                try db.run(
                    "INSERT INTO dead_letters (event_id, status, reason, dead_at, requeued_at) VALUES (?1, 400, 'r', 1, ?2)",
                    [.text(id), requeued.map(SQLValue.integer) ?? .null])
            }
        }
        #expect(try old.scalar("PRAGMA user_version")?.int64 == 8)
        // When the current program opens it
        let store = try EventStore(path: path, now: .constant(1_764_500_000_000))
        let db = store.connection
        // Then each dead impression is counted once in its bucket, the rest not at all
        _ = try ReportSchema.open(path: path)  // as the CLI does: the reports' migrations after the store's
        #expect(try db.scalar("PRAGMA user_version")?.int64 == Int64(ReportSchema.migrator.latestVersion))
        try expectDeadBucketsMatch(db, "after the migration", expected: [0: 2, 1: 1, 2: 2])
        let triggers = try db.all(
            "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'dead_letters' ORDER BY name"
        ) {
            $0.string(at: 0) ?? ""
        }
        #expect(
            triggers == [
                "dead_letters_count_close", "dead_letters_count_delete", "dead_letters_count_insert",
                "dead_letters_count_open",
            ])
        // And the triggers keep it exact from there: a requeue empties it, a new refusal counts again
        let outbox = SQLiteOutbox(store: store)
        #expect(try outbox.requeueDeadLetters(now: 9) == 5)
        try expectDeadBucketsMatch(db, "after a requeue", expected: [:])
        try outbox.deadLetter(
            [UUID(uuidString: ids[3])!, UUID(uuidString: ids[1])!], status: 400, reason: "again", at: 10)
        try expectDeadBucketsMatch(db, "dead again", expected: [0: 1, 2: 1])
    }

    @Test func theTriggersFindOtherLettersThroughTheEventIndexAndEventsByTheirUniqueId() throws {
        // Given a current store
        let store = try EventStore(path: directory.path("plan.sqlite"), now: .constant(1_764_500_000_000))
        // When the triggers' lookups are planned
        let plan = { (sql: String) in
            try store.connection.all("EXPLAIN QUERY PLAN " + sql, [.text("x"), .integer(1)]) { $0.string(at: 3) ?? "" }
        }
        let others = try plan("SELECT 1 FROM dead_letters WHERE event_id = ?1 AND requeued_at IS NULL AND rowid != ?2")
        let event = try plan("SELECT occurred_at / 900000 FROM events WHERE id = ?1 AND name = 'paywall_shown' AND ?2")
        // Then neither scans a table: a batch of refusals or a requeue costs a few lookups per letter
        #expect(others.contains { $0.contains("USING INDEX dead_letters_event (event_id=?)") }, "\(others)")
        #expect(event.contains { $0.contains("USING INDEX events_by_id (id=?)") }, "\(event)")
        #expect(!(others + event).contains { $0.hasPrefix("SCAN") }, "\(others) \(event)")
    }
}
