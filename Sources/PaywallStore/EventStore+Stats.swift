import PaywallSQLite

extension EventStore {
    /// Counts per event name, date range, delivery states (pending, delivered, dead-lettered),
    /// quarantine, dead letters and drops, read in one transaction (a consistent snapshot); a store
    /// older than schema version 6 opened read-only is read in its own layout.
    ///
    /// - Throws: `StorageError`.
    public func stats() throws -> StoreStats {
        try connection.transaction(.deferred) { db in
            var stats = StoreStats()
            try db.forEachRow("SELECT name, count(*) FROM events GROUP BY name") { row in
                stats.eventsByName[row.string(at: 0) ?? "", default: 0] = Int(row.int64(at: 1))
                return true
            }
            try db.forEachRow("SELECT min(occurred_at), max(occurred_at) FROM events") { row in
                stats.firstOccurredAt = row.optionalInt64(at: 0)
                stats.lastOccurredAt = row.optionalInt64(at: 1)
                return false
            }
            if try db.int64("SELECT count(*) FROM sqlite_schema WHERE name = 'deliveries'") == 0 {
                try Self.legacyDeliveryStates(db, into: &stats)
            } else {
                // Pending: the outbox; delivered: the trigger-kept buckets (never a scan of the
                // history); dead: impressions with an open dead letter.
                stats.outboxPending = Int(try db.int64("SELECT count(*) FROM outbox") ?? 0)
                stats.outboxDelivered = Int(
                    try db.int64("SELECT coalesce(sum(delivered), 0) FROM report_delivery_buckets") ?? 0)
                if try db.int64("SELECT count(*) FROM pragma_table_info('deliveries') WHERE name = 'by_device'") == 1 {
                    stats.outboxForwardedByDevice = Int(
                        try db.int64(
                            "SELECT count(*) FROM deliveries WHERE by_device = 1") ?? 0)
                }
                stats.outboxDead = Int(
                    try db.int64(
                        "SELECT count(DISTINCT event_id) FROM dead_letters WHERE requeued_at IS NULL") ?? 0)
            }
            stats.quarantined = Int(try db.int64("SELECT count(*) FROM quarantine") ?? 0)
            stats.deadLetters = Int(try db.int64("SELECT count(*) FROM dead_letters WHERE requeued_at IS NULL") ?? 0)
            stats.deadLettersRequeued = Int(
                try db.int64("SELECT count(*) FROM dead_letters WHERE requeued_at IS NOT NULL") ?? 0)
            stats.droppedAtBound = Int(try db.int64("SELECT coalesce(sum(count), 0) FROM drops") ?? 0)
            if try db.int64("SELECT count(*) FROM sqlite_schema WHERE name = 'suppressions'") == 1 {
                stats.suppressed = Int(try db.int64("SELECT coalesce(sum(count), 0) FROM suppressed_events") ?? 0)
                stats.suppressedCustomers = Int(try db.int64("SELECT count(*) FROM suppressions") ?? 0)
            }
            try Self.uploadStats(db, into: &stats)
            return stats
        }
    }

    /// The upload cursor, what is after it, hand-overs and retention deletions (migration
    /// store/upload-cursor-and-delivery-pauses; absent from an older store opened read-only).
    private static func uploadStats(_ db: Database, into stats: inout StoreStats) throws {
        guard try db.int64("SELECT count(*) FROM sqlite_schema WHERE name = 'upload_cursor'") == 1 else { return }
        stats.outboxHandedToCollector = Int(try db.int64("SELECT count(*) FROM deliveries WHERE to_collector = 1") ?? 0)
        stats.deletedByRetention = Int(try db.int64("SELECT coalesce(sum(count), 0) FROM retention_deletions") ?? 0)
        stats.uploadedThroughSeq = try db.int64(
            "SELECT acknowledged_seq FROM upload_cursor WHERE destination = ?1",
            [.text(SQLiteUploadQueue.destination)])
        if let cursor = stats.uploadedThroughSeq {
            stats.uploadPending = Int(
                try db.int64("SELECT count(*) FROM events WHERE seq > ?1", [.integer(cursor)]) ?? 0)
        }
    }

    /// Delivery states of a store older than schema version 6 opened read-only (so not migrated):
    /// one outbox row per impression with its `state`.
    private static func legacyDeliveryStates(_ db: Database, into stats: inout StoreStats) throws {
        try db.forEachRow("SELECT state, count(*) FROM outbox GROUP BY state") { row in
            let count = Int(row.int64(at: 1))
            switch row.string(at: 0) {
            case "pending": stats.outboxPending = count
            case "delivered": stats.outboxDelivered = count
            default: stats.outboxDead += count
            }
            return true
        }
    }
}
