import Foundation
import PaywallCore
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import Testing

/// `report_dead_buckets` (migration 9), kept by triggers on `dead_letters`: after every kind of
/// change it equals what data quality used to compute from the dead letters and the events.
struct DeadBucketsTests {
    let directory = TemporaryDirectory()

    /// 12 impressions 5 minutes apart (three per 15-minute bucket, four buckets) and one
    /// `paywall_closed` in the first bucket; all pending in the outbox.
    func storeWithEvents(_ name: String) throws -> (EventStore, ids: [String], closed: String) {
        let store = try EventStore(path: directory.path(name), now: .constant(1_764_500_000_000))
        var events = (0..<12).map { index in
            var event = impression(index, base: 0)
            event.occurredAt = firstBucketStart + Int64(index) * 300_000
            return event
        }
        var closed = impression(12, base: firstBucketStart + 1)
        closed.name = .paywallClosed
        events.append(closed)
        try store.insert(events)
        return (store, events.prefix(12).map(\.id.uuidString), closed.id.uuidString)
    }

    @Test func eachKindOfChangeKeepsTheBucketsEqualToADirectCount() throws {
        // Given a store with 12 impressions over 4 buckets and a closed event
        let (store, ids, closed) = try storeWithEvents("kinds.sqlite")
        let db = store.connection
        let outbox = SQLiteOutbox(store: store)
        let unknown = "01990000-0000-7000-8000-0000000FFFFF"
        func letter(_ id: String, requeued: Int64? = nil) throws {
            try db.run(
                "INSERT INTO dead_letters (event_id, status, reason, dead_at, requeued_at) VALUES (?1, 400, 'r', 1, ?2)",
                [.text(id), requeued.map(SQLValue.integer) ?? .null])
        }
        try expectDeadBucketsMatch(db, "fresh store", expected: [:])
        // When the forwarder dead-letters three impressions of bucket 0 and one of bucket 1
        try outbox.deadLetter([0, 1, 2, 3].map { UUID(uuidString: ids[$0])! }, status: 400, reason: "refused", at: 2)
        try expectDeadBucketsMatch(db, "forwarder dead letters", expected: [0: 3, 1: 1])
        // and a second open letter is written for an impression already dead (no double count),
        // an already-requeued letter, a letter for an unknown event and one for a non-impression
        try letter(ids[0])
        try letter(ids[4], requeued: 5)
        try letter(unknown)
        try letter(closed)
        try expectDeadBucketsMatch(db, "duplicate, requeued, unknown, non-impression", expected: [0: 3, 1: 1])
        // and one of the two open letters of ids[0] is requeued by hand (the other keeps it dead)
        try db.run(
            "UPDATE dead_letters SET requeued_at = 6 WHERE rowid = (SELECT min(rowid) FROM dead_letters WHERE event_id = ?1)",
            [.text(ids[0])])
        try expectDeadBucketsMatch(db, "one of two letters requeued", expected: [0: 3, 1: 1])
        // and the forwarder requeues every open letter in one statement
        #expect(try outbox.requeueDeadLetters(now: 7) == 4)
        try expectDeadBucketsMatch(db, "requeue", expected: [:])
        // and two of them are refused again after the requeue
        try outbox.deadLetter(
            [UUID(uuidString: ids[1])!, UUID(uuidString: ids[3])!], status: 400, reason: "again", at: 8)
        try expectDeadBucketsMatch(db, "dead again after a requeue", expected: [0: 1, 1: 1])
        // and a requeued letter is reopened by hand, on an event that has no open letter and on one that has
        try db.run(
            "UPDATE dead_letters SET requeued_at = NULL WHERE event_id = ?1 AND requeued_at IS NOT NULL",
            [.text(ids[4])])
        try db.run(
            "UPDATE dead_letters SET requeued_at = NULL WHERE event_id = ?1 AND requeued_at IS NOT NULL",
            [.text(ids[1])])
        try expectDeadBucketsMatch(db, "reopened", expected: [0: 1, 1: 2])
        try db.run(
            "UPDATE dead_letters SET requeued_at = NULL WHERE event_id IN (?1, ?2)", [.text(ids[4]), .text(ids[1])])
        try expectDeadBucketsMatch(db, "open letters 'reopened' again", expected: [0: 1, 1: 2])
        // and an open letter moves to another event (bucket 1 → 3), to an event already open, to an
        // unknown id and back from it, and a requeued letter moves to an event with none open
        try db.run("UPDATE dead_letters SET event_id = ?2 WHERE event_id = ?1", [.text(ids[4]), .text(ids[10])])
        try expectDeadBucketsMatch(db, "moved to another bucket", expected: [0: 1, 1: 1, 3: 1])
        try db.run(
            "UPDATE dead_letters SET event_id = ?2 WHERE event_id = ?1 AND requeued_at IS NULL",
            [.text(ids[3]), .text(ids[1])])
        try expectDeadBucketsMatch(db, "moved onto an open event", expected: [0: 1, 3: 1])
        try db.run("UPDATE dead_letters SET event_id = ?2 WHERE event_id = ?1", [.text(ids[10]), .text(unknown)])
        try expectDeadBucketsMatch(db, "moved to an unknown id", expected: [0: 1])
        try db.run(
            "UPDATE dead_letters SET event_id = ?2 WHERE rowid = (SELECT min(rowid) FROM dead_letters WHERE event_id = ?1)",
            [.text(unknown), .text(ids[11])])
        try expectDeadBucketsMatch(db, "moved from an unknown id", expected: [0: 1, 3: 1])
        try db.run(
            "UPDATE dead_letters SET event_id = ?2 WHERE event_id = ?1 AND requeued_at IS NOT NULL",
            [.text(ids[2]), .text(ids[7])])
        try expectDeadBucketsMatch(db, "a requeued letter moved", expected: [0: 1, 3: 1])
        // and letters are deleted: one of two open ones, then the last one, then requeued ones
        try db.run(
            "DELETE FROM dead_letters WHERE rowid = (SELECT max(rowid) FROM dead_letters WHERE event_id = ?1)",
            [.text(ids[1])])
        try expectDeadBucketsMatch(db, "one of two open letters deleted", expected: [0: 1, 3: 1])
        try db.run("DELETE FROM dead_letters WHERE event_id = ?1", [.text(ids[1])])
        try expectDeadBucketsMatch(db, "the last open letter deleted", expected: [3: 1])
        try db.run("DELETE FROM dead_letters WHERE requeued_at IS NOT NULL")
        // Then the buckets equal the direct count after every step (checked above), down to the end
        try expectDeadBucketsMatch(db, "requeued letters deleted", expected: [3: 1])
        try db.run("DELETE FROM dead_letters")
        try expectDeadBucketsMatch(db, "everything deleted", expected: [:])
    }

    @Test func twoThousandRandomChangesKeepTheBucketsEqualToADirectCount() throws {
        // Given the same store and a fixed seed
        let (store, ids, closed) = try storeWithEvents("random.sqlite")
        let db = store.connection
        let targets = ids + [closed, "01990000-0000-7000-8000-0000000FFFFF"]
        var random = SeededGenerator(seed: 0xDEAD_1E77E5)
        var kinds: [Int: Int] = [:]
        // When 2,000 random inserts, deletes, requeues, reopenings and moves run, one statement each
        for step in 0..<2_000 {
            let kind = Int(random.next() % 9)
            kinds[kind, default: 0] += 1
            let target = SQLValue.text(targets[Int(random.next() % UInt64(targets.count))])
            let other = SQLValue.text(targets[Int(random.next() % UInt64(targets.count))])
            let anyLetter =
                "(SELECT rowid FROM dead_letters ORDER BY rowid LIMIT 1 OFFSET ?2 % max(1, (SELECT count(*) FROM dead_letters)))"
            let offset = SQLValue.integer(Int64(random.next() % 1_000))
            switch kind {
            case 0, 1:
                try db.run(
                    "INSERT INTO dead_letters (event_id, status, reason, dead_at) VALUES (?1, 400, 'r', 1)", [target])
            case 2:
                try db.run(
                    "INSERT INTO dead_letters (event_id, status, reason, dead_at, requeued_at) VALUES (?1, 400, 'r', 1, 2)",
                    [target])
            case 3: try db.run("DELETE FROM dead_letters WHERE rowid = \(anyLetter)", [target, offset])
            case 4:
                try db.run(
                    "UPDATE dead_letters SET requeued_at = 3 WHERE rowid = \(anyLetter) AND ?1 IS NOT NULL",
                    [target, offset])
            case 5:
                try db.run(
                    "UPDATE dead_letters SET requeued_at = NULL WHERE rowid = \(anyLetter) AND ?1 IS NOT NULL",
                    [target, offset])
            case 6: try db.run("UPDATE dead_letters SET event_id = ?1 WHERE rowid = \(anyLetter)", [target, offset])
            case 7: try db.run("UPDATE dead_letters SET event_id = ?2 WHERE event_id = ?1", [target, other])
            default:
                // batches: requeue all open letters, or delete every letter of one event
                if random.next() % 2 == 0 {
                    try db.run("UPDATE dead_letters SET requeued_at = 4 WHERE requeued_at IS NULL")
                } else {
                    try db.run("DELETE FROM dead_letters WHERE event_id = ?1", [target])
                }
            }
            try expectDeadBucketsMatch(db, "step \(step), kind \(kind)")
        }
        // Then the buckets matched the direct count after every step, and every kind of change ran
        #expect(kinds.count == 9 && kinds.values.allSatisfy { $0 > 150 }, "\(kinds)")
        #expect(try db.scalar("SELECT count(*) FROM dead_letters")?.int64 ?? 0 > 20)
    }
}

/// The start of the 15-minute bucket of the first impression of ``DeadBucketsTests``.
let firstBucketStart: Int64 = 1_764_399_600_000

/// Expects `report_dead_buckets` (buckets that are not 0) to equal the old data quality count:
/// distinct event ids with an open dead letter whose event is a stored `paywall_shown`, per
/// bucket of `occurred_at`; and, if given, the bucket counts relative to the first impression's bucket.
func expectDeadBucketsMatch(
    _ db: Connection, _ step: String, expected: [Int64: Int64]? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let buckets = try db.all("SELECT bucket, dead FROM report_dead_buckets WHERE dead != 0 ORDER BY bucket") {
        [$0.int64(at: 0), $0.int64(at: 1)]
    }
    let direct = try db.all(
        """
        SELECT e.occurred_at / 900000, count(*)
        FROM (SELECT DISTINCT event_id FROM dead_letters WHERE requeued_at IS NULL) AS l
        CROSS JOIN events AS e ON e.id = l.event_id AND e.name = 'paywall_shown'
        GROUP BY 1 ORDER BY 1
        """
    ) { [$0.int64(at: 0), $0.int64(at: 1)] }
    #expect(buckets == direct, "\(step)", sourceLocation: sourceLocation)
    if let expected {
        let first = firstBucketStart / 900_000
        let relative = Dictionary(uniqueKeysWithValues: buckets.map { ($0[0] - first, $0[1]) })
        #expect(relative == expected, "\(step)", sourceLocation: sourceLocation)
    }
}
