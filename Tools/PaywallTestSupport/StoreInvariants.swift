import PaywallSQLite

/// The invariants every store at rest holds, in one checker: every impression in exactly one
/// delivery state (the outbox, the deliveries or an open dead letter), no stray outbox, delivery or
/// dead-letter row, the delivery and dead-letter buckets equal to direct counts, and SQLite's
/// integrity check. `paywall-soak` and `paywall-fleet` run it after their runs, and
/// `PaywallUploaderTests` after each crash and retention scenario.
public struct StoreInvariants {
    /// One sentence per violated invariant; empty when the store is consistent.
    public let violations: [String]
    /// What `PRAGMA integrity_check` answered (`ok` for a sound file).
    public let integrity: String

    /// Checks the store at `path`, on a read-only connection of its own.
    public init(path: String) throws {
        try self.init(connection: Connection(path: path, options: .readOnly))
    }

    /// Checks the store open on `connection` (which it only reads).
    public init(connection: Connection) throws {
        func count(_ sql: String) throws -> Int64 { try connection.scalar(sql)?.int64 ?? -1 }
        var found: [String] = []
        let misplaced = try count(
            """
            SELECT count(*) FROM events AS e WHERE e.name = 'paywall_shown'
              AND (EXISTS (SELECT 1 FROM outbox AS o WHERE o.event_rowid = e.rowid))
                + (EXISTS (SELECT 1 FROM deliveries AS v WHERE v.event_rowid = e.rowid))
                + (EXISTS (SELECT 1 FROM dead_letters AS d WHERE d.event_id = e.id AND d.requeued_at IS NULL)) != 1
            """)
        if misplaced != 0 {
            found.append(
                "\(misplaced) impressions are not in exactly one delivery state (outbox, deliveries, open dead letters)"
            )
        }
        let strays = try count(
            """
            SELECT count(*) FROM (SELECT event_rowid FROM outbox UNION ALL SELECT event_rowid FROM deliveries) AS r
            WHERE NOT EXISTS (SELECT 1 FROM events AS e WHERE e.rowid = r.event_rowid AND e.name = 'paywall_shown')
            """)
        if strays != 0 { found.append("\(strays) outbox or delivery rows do not belong to a stored impression") }
        let strayLetters = try count(
            """
            SELECT count(*) FROM dead_letters AS d WHERE NOT EXISTS (SELECT 1 FROM events AS e WHERE e.id = d.event_id)
            """)
        if strayLetters != 0 { found.append("\(strayLetters) dead letters do not belong to a stored event") }
        let bucketErrors = try count(
            """
            SELECT (SELECT count(*) FROM (
                      SELECT bucket, delivered, by_device FROM report_delivery_buckets WHERE delivered != 0
                      EXCEPT SELECT occurred_at / 900000, count(*), sum(by_device) FROM deliveries GROUP BY 1))
                 + (SELECT count(*) FROM (
                      SELECT occurred_at / 900000, count(*), sum(by_device) FROM deliveries GROUP BY 1
                      EXCEPT SELECT bucket, delivered, by_device FROM report_delivery_buckets))
            """)
        if bucketErrors != 0 {
            found.append("\(bucketErrors) delivery buckets differ from a direct count of the deliveries")
        }
        let deadBucketErrors = try count(
            """
            WITH direct AS (
              SELECT e.occurred_at / 900000 AS bucket, count(*) AS dead
              FROM (SELECT DISTINCT event_id FROM dead_letters WHERE requeued_at IS NULL) AS l
              CROSS JOIN events AS e ON e.id = l.event_id AND e.name = 'paywall_shown'
              GROUP BY 1)
            SELECT (SELECT count(*) FROM (SELECT bucket, dead FROM report_dead_buckets WHERE dead != 0 EXCEPT SELECT * FROM direct))
                 + (SELECT count(*) FROM (SELECT * FROM direct EXCEPT SELECT bucket, dead FROM report_dead_buckets))
            """)
        if deadBucketErrors != 0 {
            found.append("\(deadBucketErrors) dead-letter buckets differ from a direct count of the open dead letters")
        }
        let integrity = try connection.scalar("PRAGMA integrity_check")?.string ?? "nil"
        if integrity != "ok" { found.append("integrity_check: \(integrity)") }
        self.violations = found
        self.integrity = integrity
    }

    /// The violations of the store at `path` (empty when it is consistent).
    public static func violations(_ path: String) throws -> [String] {
        try StoreInvariants(path: path).violations
    }
}
