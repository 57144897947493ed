import PaywallSQLite

/// Keeps the report rollups (`report_presentations`, `report_event_buckets`) up to date with the
/// events table, incrementally: events with a rowid above the watermark stored in `meta` are folded
/// in, in chunks, one transaction per chunk (so the recorder is never blocked for long, and a
/// killed run loses nothing: the watermark moves in the same transaction as the rollups).
struct Rollup {
    /// Meta key of the last events rowid folded into the rollups.
    static let watermarkKey = "reports.watermark_rowid"
    /// Meta key of the newest `occurred_at` among the stored events.
    static let newestKey = "reports.newest_occurred_at"

    /// What one refresh did.
    struct Result: Sendable, Equatable {
        /// Events folded in.
        var eventsRead: Int64 = 0
        /// The watermark before and after.
        var watermarkBefore: Int64 = 0
        var watermarkAfter: Int64 = 0
        /// 15-minute buckets (`ms / 900000`) of the first events of every presentation that changed
        /// (before and after the change) and of every new event's `occurred_at`.
        var touchedBuckets: Set<Int64> = []
    }

    let connection: Connection
    /// Events per transaction.
    var chunkSize: Int64 = 250_000

    /// Folds every event above the watermark into the rollups.
    ///
    /// - Throws: ``StorageError`` (the rollups stay consistent with the watermark).
    func refresh() throws -> Result {
        var result = Result()
        let top = try connection.scalar("SELECT coalesce(max(rowid), 0) FROM events")?.int64 ?? 0
        result.watermarkBefore = try watermark()
        result.watermarkAfter = result.watermarkBefore
        while true {
            let done = try connection.transaction(.immediate) { db -> Bool in
                let after = Int64(try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(Self.watermarkKey)])?
                    .string ?? "0") ?? 0
                guard after < top else { return true }
                let through = min(top, after + chunkSize)
                let range: [String: SQLValue] = ["after_rowid": .integer(after), "through_rowid": .integer(through)]
                try collectTouched(db, range, into: &result.touchedBuckets, includeEvents: true)
                try db.run(ReportQueries.rollupPresentations, NamedParameters.values(for: ReportQueries.rollupPresentations, range))
                try db.run(ReportQueries.rollupEventBuckets, NamedParameters.values(for: ReportQueries.rollupEventBuckets, range))
                try collectTouched(db, range, into: &result.touchedBuckets, includeEvents: false)
                let stats = try db.all("""
                    SELECT count(*), max(occurred_at) FROM events WHERE rowid > ? AND rowid <= ?
                    """, [.integer(after), .integer(through)]) { ($0.int64(at: 0), $0.optionalInt64(at: 1)) }
                result.eventsRead += stats.first?.0 ?? 0
                if let newest = stats.first?.1 {
                    try db.run("""
                        INSERT INTO meta (key, value) VALUES (?1, CAST(?2 AS TEXT))
                        ON CONFLICT (key) DO UPDATE SET value = CAST(max(CAST(value AS INTEGER), ?2) AS TEXT)
                        """, [.text(Self.newestKey), .integer(newest)])
                }
                try db.run("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                           [.text(Self.watermarkKey), .text(String(through))])
                result.watermarkAfter = through
                return through >= top
            }
            if done { return result }
        }
    }

    /// The current watermark (0 before the first refresh).
    func watermark() throws -> Int64 {
        Int64(try connection.scalar("SELECT value FROM meta WHERE key = ?", [.text(Self.watermarkKey)])?.string ?? "0") ?? 0
    }

    /// Adds the buckets of the presentations the events in the range belong to (their current first
    /// event), and with `includeEvents` the buckets of the events themselves.
    private func collectTouched(_ db: Database, _ range: [String: SQLValue], into buckets: inout Set<Int64>,
                                includeEvents: Bool) throws {
        let values: [SQLValue] = [range["after_rowid"]!, range["through_rowid"]!]
        try db.forEachRow("""
            SELECT DISTINCT p.first_at / 900000 FROM report_presentations AS p
            WHERE p.pw_id IN (SELECT pw_id FROM events WHERE rowid > ? AND rowid <= ?)
            """, values) { buckets.insert($0.int64(at: 0)); return true }
        if includeEvents {
            try db.forEachRow("SELECT DISTINCT occurred_at / 900000 FROM events WHERE rowid > ? AND rowid <= ?", values) {
                buckets.insert($0.int64(at: 0)); return true
            }
        }
    }
}
