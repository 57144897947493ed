import PaywallSQLite
import PaywallStore

/// Erases forgotten customers from the reports' rollups (``ReportSchema``'s tables), inside
/// ``PaywallStore/UserErasure``'s transaction, so that every later report equals the report of a
/// store that never held them:
/// - their presentations leave `report_presentations`, their keys leave `report_customers`, their
///   events leave the counts of `report_event_buckets` (a bucket left with no event goes);
/// - the 15-minute buckets of those presentations (first event, impression, close) and of those events
///   are marked in `report_dirty_buckets`, so the next `report --nightly` recomputes their days'
///   partials (and never takes the additive shortcut for them);
/// - the newest `occurred_at` the rollups saw is recomputed when it was one of theirs.
///
/// A presentation that also holds another customer's events (a `pw_id` reused across customers,
/// which the library never writes) would change rather than go; then the rollups are emptied and the
/// watermark forgotten, as a layout migration does, and the next report rebuilds them from the events.
/// Events above the watermark were never folded and need nothing here.
public struct ReportErasure: ErasureParticipant {
    /// Creates the participant (register it with `UserErasure(store:participants:)`).
    public init() {}

    /// Erases the customers' rows from the rollups (see the type's summary).
    public func erase(_ erased: ErasedEvents, in db: Database) throws -> [TableCount] {
        guard try db.int64("SELECT count(*) FROM sqlite_schema WHERE name = 'report_presentations'") == 1 else {
            return []
        }
        let watermark =
            Int64(
                try ReportSchema.metaValue(ReportSchema.watermarkKey, in: db) ?? "0") ?? 0
        let folded = erased.events.filter { $0.seq <= watermark }
        // The nightly job's subscription state names customers and sums their money: it is built
        // again from the remaining events by the next nightly run.
        if try db.int64("SELECT count(*) FROM sqlite_schema WHERE name = 'report_subscriptions'") == 1 {
            try SubscriptionState.clear(db)
        }
        // A refresh reading at the same time must not merge what it read before this erasure (Rollup).
        try ReportSchema.incrementMeta(ReportSchema.erasureGenerationKey, in: db)
        let customers = try db.run(
            "DELETE FROM report_customers WHERE user_id IN (SELECT value FROM json_each(?1))",
            [.text(FunnelReport.jsonArray(erased.userIDs))])
        if folded.contains(where: { erased.sharedPresentations.contains($0.pwID) }) {
            let presentations = try db.int64("SELECT count(*) FROM report_presentations") ?? 0
            try db.execute(ReportSchema.exactProductsResetSQL)
            try ReportSchema.forget(
                [ReportSchema.watermarkKey, ReportSchema.newestKey, ReportSchema.partialsTimezoneKey], in: db)
            return [
                TableCount(table: "report_presentations", rows: Int(presentations)),
                TableCount(table: "report_customers", rows: customers),
            ]
        }
        var dirty = Set<Int64>()
        let remove = try db.cachedStatement(
            "DELETE FROM report_presentations WHERE pw_id = ?1 RETURNING first_at, impression_at, close_at")
        var presentations = 0
        for pwID in Set(folded.map(\.pwID)) {
            var text = pwID
            guard let key = text.withUTF8({ UUIDKey(text: UnsafeRawBufferPointer($0)) }) else { continue }
            remove.reset()
            key.bind(remove, at: 1)
            while try remove.step() {
                presentations += 1
                for column in 0..<3 { if let at = remove.row.optionalInt64(at: column) { dirty.insert(at / 900_000) } }
            }
        }
        remove.reset()
        let buckets = try eraseBucketCounts(folded, db)
        dirty.formUnion(buckets)
        let mark = try db.cachedStatement("INSERT OR IGNORE INTO report_dirty_buckets (bucket) VALUES (?1)")
        for bucket in dirty {
            mark.reset()
            mark.bind(bucket, at: 1)
            try mark.run()
        }
        try recomputeNewest(folded, watermark: watermark, users: erased.userIDs, db)
        return [
            TableCount(table: "report_presentations", rows: presentations),
            TableCount(table: "report_customers", rows: customers),
        ]
    }

    /// Takes the folded events off `report_event_buckets`; returns their buckets.
    private func eraseBucketCounts(_ folded: [ErasedEvents.Event], _ db: Database) throws -> Set<Int64> {
        var counts: [Int64: (events: Int64, impressions: Int64)] = [:]
        for event in folded {
            counts[event.occurredAt / 900_000, default: (0, 0)].events += 1
            if event.isImpression { counts[event.occurredAt / 900_000, default: (0, 0)].impressions += 1 }
        }
        let update = try db.cachedStatement(
            """
            UPDATE report_event_buckets SET events = events - ?2, impressions = impressions - ?3 WHERE bucket = ?1
            """)
        for (bucket, count) in counts {
            update.reset()
            update.bind(bucket, at: 1)
            update.bind(count.events, at: 2)
            update.bind(count.impressions, at: 3)
            try update.run()
        }
        try db.run("DELETE FROM report_event_buckets WHERE events <= 0")
        return Set(counts.keys)
    }

    /// The rollups' newest `occurred_at`, when it was one of the erased events': the newest of the
    /// folded events that stay (the key goes when none stay).
    private func recomputeNewest(_ folded: [ErasedEvents.Event], watermark: Int64, users: [String], _ db: Database)
        throws
    {
        guard let newestErased = folded.map(\.occurredAt).max(),
            let stored = try db.scalar(
                "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1",
                [.text(ReportSchema.newestKey)])?.int64, newestErased >= stored
        else { return }
        let newest = try db.scalar(
            """
            SELECT max(min(occurred_at, recorded_at)) FROM events
            WHERE seq <= ?1 AND user_id NOT IN (SELECT value FROM json_each(?2))
            """, [.integer(watermark), .text(FunnelReport.jsonArray(users))])?.int64
        if let newest {
            try db.run(
                "UPDATE meta SET value = CAST(?2 AS TEXT) WHERE key = ?1",
                [.text(ReportSchema.newestKey), .integer(newest)])
        } else {
            try ReportSchema.forget([ReportSchema.newestKey], in: db)
        }
    }
}
