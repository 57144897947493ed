import PaywallCore
import PaywallSQLite

/// How long uploaded events stay on a device, and how large its store may grow.
public struct RetentionPolicy: Sendable, Hashable {
    /// Uploaded events recorded longer ago than this are deleted (default 7 days), in milliseconds.
    public var retentionMs: Int64
    /// Past this many bytes of pages in use, the oldest uploaded events go first (default 16 MiB).
    public var byteBudget: Int

    /// Creates a policy.
    public init(retentionMs: Int64 = 7 * 24 * 3_600_000, byteBudget: Int = 16 << 20) {
        self.retentionMs = max(0, retentionMs)
        self.byteBudget = max(0, byteBudget)
    }
}

/// What one pruning did.
public struct PruneResult: Sendable, Hashable {
    /// Events deleted for their age.
    public var deletedForAge = 0
    /// Events deleted, oldest first, because the store was over its byte budget.
    public var deletedForBudget = 0
    /// Bytes of pages in use before and after.
    public var bytesBefore = 0
    /// Bytes of pages in use after (freed pages are reused by later writes; the file does not shrink).
    public var bytesAfter = 0

    /// Every event deleted.
    public var deleted: Int { deletedForAge + deletedForBudget }
}

extension EventStore {
    /// Device retention, in one transaction: deletes the events the collector acknowledged
    /// (`seq` at most the upload cursor) that are done here — any event but an impression, and an
    /// impression once delivered, handed to the collector or dead-lettered (out of the outbox) — when
    /// recorded before `now - retentionMs`, then, while the pages in use pass the byte budget, the
    /// oldest such events whatever their age (then the file is vacuumed, so it shrinks). Never an event not yet uploaded, never one waiting in the
    /// outbox, and never the highest `seq` (so no `seq` is reused and the upload cursor and the reports'
    /// watermark stay valid). Their `deliveries` and `dead_letters` rows go with them (the triggers keep
    /// the delivery and dead-letter buckets exact); the count is added to `retention_deletions`.
    ///
    /// A store a report ran on (the reports module's `reports.` keys in `meta`: its rollups and
    /// watermark) is left alone: its reports are computed from the events, so pruning would change them.
    ///
    /// - Throws: `StorageError`.
    @discardableResult
    public func prune(_ policy: RetentionPolicy, now: Int64) throws -> PruneResult {
        var result = try connection.transaction(.immediate) { db -> PruneResult in
            var result = PruneResult()
            result.bytesBefore = try Self.bytesInUse(db)
            result.bytesAfter = result.bytesBefore
            // The reports module keeps its watermark and leases in `meta` under `reports.`.
            let reported = try db.int64("SELECT count(*) FROM meta WHERE key LIKE 'reports.%'") ?? 0
            guard reported == 0 else { return result }
            let cursor =
                try db.int64(
                    "SELECT acknowledged_seq FROM upload_cursor WHERE destination = ?1",
                    [.text(SQLiteUploadQueue.destination)]) ?? 0
            let highest = try db.int64("SELECT max(seq) FROM events") ?? 0
            let bound = min(cursor, highest - 1)
            guard bound > 0 else { return result }
            result.deletedForAge = try Self.delete(db, through: bound, recordedBefore: now - policy.retentionMs)
            let used = try Self.bytesInUse(db)
            let events = try db.int64("SELECT count(*) FROM events") ?? 0
            if used > policy.byteBudget, events > 0 {
                // Pages emptied by the deletes are counted back only after a VACUUM (below); the number
                // to delete is the excess over the mean bytes per event, plus a quarter, so the next
                // passes do not vacuum again at once.
                let perEvent = max(1, used / Int(events))
                let excess = (used - policy.byteBudget + perEvent - 1) / perEvent
                let take = Int64(max(1, excess + excess / 4))
                let nth = try db.int64(
                    """
                    SELECT seq FROM events AS e
                    WHERE seq <= ?1 AND NOT EXISTS (SELECT 1 FROM outbox AS o WHERE o.event_rowid = e.seq)
                    ORDER BY seq LIMIT 1 OFFSET ?2
                    """, [.integer(bound), .integer(take - 1)])
                if let last = try nth
                    ?? db.int64(
                        """
                        SELECT max(seq) FROM events AS e
                        WHERE seq <= ?1 AND NOT EXISTS (SELECT 1 FROM outbox AS o WHERE o.event_rowid = e.seq)
                        """, [.integer(bound)])
                {
                    result.deletedForBudget = try Self.delete(db, through: last, recordedBefore: Int64.max)
                }
            }
            result.bytesAfter = try Self.bytesInUse(db)
            if result.deleted > 0 {
                _ = try db.run(
                    "INSERT INTO retention_deletions (deleted_at, count) VALUES (?1, ?2)",
                    [.integer(now), .integer(Int64(result.deleted))])
            }
            return result
        }
        if result.deletedForBudget > 0 {
            // Give the emptied pages back, so the file is under its budget (the rowids, and so the
            // upload cursor and the reports' watermark, survive VACUUM: `seq` is INTEGER PRIMARY KEY).
            try connection.withDatabase { db in try db.execute("VACUUM") }
            result.bytesAfter = try connection.withDatabase { db in try Self.bytesInUse(db) }
        }
        return result
    }

    /// Deletes the done events with `seq <= through` recorded before `recordedBefore`, with their
    /// dead letters (first, while the triggers can still find the event) and deliveries.
    private static func delete(_ db: Database, through: Int64, recordedBefore: Int64) throws -> Int {
        let values: [SQLValue] = [.integer(through), .integer(recordedBefore)]
        _ = try db.run(
            """
            DELETE FROM dead_letters WHERE event_id IN (
              SELECT id FROM events AS e WHERE seq <= ?1 AND recorded_at < ?2
                AND NOT EXISTS (SELECT 1 FROM outbox AS o WHERE o.event_rowid = e.seq))
            """, values)
        _ = try db.run(
            """
            DELETE FROM deliveries WHERE event_rowid IN (
              SELECT seq FROM events AS e WHERE seq <= ?1 AND recorded_at < ?2
                AND NOT EXISTS (SELECT 1 FROM outbox AS o WHERE o.event_rowid = e.seq))
            """, values)
        return try db.run(
            """
            DELETE FROM events WHERE seq <= ?1 AND recorded_at < ?2
              AND NOT EXISTS (SELECT 1 FROM outbox AS o WHERE o.event_rowid = events.seq)
            """, values)
    }

    /// Bytes of the pages in use (the file's pages less its free list).
    static func bytesInUse(_ db: Database) throws -> Int {
        let pages = try db.int64("PRAGMA page_count") ?? 0
        let free = try db.int64("PRAGMA freelist_count") ?? 0
        let size = try db.int64("PRAGMA page_size") ?? 4096
        return Int((pages - free) * size)
    }
}
