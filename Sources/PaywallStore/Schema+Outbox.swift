import PaywallSQLite

extension Schema {
    /// Migration 6: the outbox keyed by the events rowid, so an impression costs the recorder one
    /// small integer-keyed row instead of four b-tree inserts.
    ///
    /// Each stored `paywall_shown` is in exactly one place:
    /// - `outbox`: waiting for RevenueCat (`event_rowid` = `events.rowid`, with its backoff state);
    /// - `deliveries`: accepted by RevenueCat (or imported as already forwarded);
    /// - an open `dead_letters` record (`requeued_at IS NULL`): refused; a requeue puts it back in `outbox`.
    ///
    /// `report_delivery_buckets` counts deliveries per 15-minute bucket of `occurred_at` (as
    /// `report_event_buckets` counts events), kept exact by triggers on `deliveries`, so data quality
    /// and `stats` never scan the delivery history. The rowid key relies on events rowids being
    /// stable and never reused, as the reports' rowid watermark does: events are never deleted, and
    /// `VACUUM` keeps rowids in the SQLite versions this program runs on.
    ///
    /// Existing rows are converted: `pending` → `outbox`, `delivered` → `deliveries`, `dead` → dropped
    /// from the outbox, keeping (or, if missing, adding) an open dead letter. The indexes
    /// `outbox_state_next_attempt` and `report_outbox_by_time` go with the old table. (No
    /// `ALTER TABLE … RENAME`: it would open the connection's temp schema; the pending rows, usually
    /// few, wait in a scratch table instead.)
    static let outboxKeyedByEventRowid = Migration(
        "outbox-keyed-by-event-rowid",
        sql: """
            CREATE TABLE deliveries (
              event_rowid INTEGER PRIMARY KEY, occurred_at INTEGER NOT NULL, delivered_at INTEGER NOT NULL) STRICT;
            CREATE TABLE report_delivery_buckets (bucket INTEGER PRIMARY KEY, delivered INTEGER NOT NULL) STRICT;
            INSERT INTO deliveries (event_rowid, occurred_at, delivered_at)
              SELECT e.rowid, o.occurred_at, coalesce(o.delivered_at, 0)
              FROM outbox AS o JOIN events AS e ON e.id = o.event_id WHERE o.state = 'delivered';
            INSERT INTO dead_letters (event_id, status, reason, dead_at)
              SELECT o.event_id, 0, 'dead in the outbox without an open dead letter (kept by migration 6)', 0
              FROM outbox AS o
              WHERE o.state = 'dead'
                AND NOT EXISTS (SELECT 1 FROM dead_letters AS d WHERE d.event_id = o.event_id AND d.requeued_at IS NULL);
            CREATE TABLE outbox_pending_v3 AS
              SELECT e.rowid AS event_rowid, o.occurred_at, o.attempts, o.next_attempt_at
              FROM outbox AS o JOIN events AS e ON e.id = o.event_id WHERE o.state = 'pending';
            DROP TABLE outbox;
            CREATE TABLE outbox (
              event_rowid INTEGER PRIMARY KEY, occurred_at INTEGER NOT NULL,
              attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL DEFAULT 0) STRICT;
            INSERT INTO outbox (event_rowid, occurred_at, attempts, next_attempt_at)
              SELECT event_rowid, occurred_at, attempts, next_attempt_at FROM outbox_pending_v3 ORDER BY event_rowid;
            DROP TABLE outbox_pending_v3;
            INSERT INTO report_delivery_buckets (bucket, delivered)
              SELECT occurred_at / 900000, count(*) FROM deliveries GROUP BY occurred_at / 900000;
            CREATE TRIGGER deliveries_count_insert AFTER INSERT ON deliveries BEGIN
              INSERT INTO report_delivery_buckets (bucket, delivered) VALUES (new.occurred_at / 900000, 1)
                ON CONFLICT(bucket) DO UPDATE SET delivered = delivered + 1;
            END;
            CREATE TRIGGER deliveries_count_delete AFTER DELETE ON deliveries BEGIN
              UPDATE report_delivery_buckets SET delivered = delivered - 1 WHERE bucket = old.occurred_at / 900000;
            END;
            CREATE TRIGGER deliveries_count_update AFTER UPDATE OF occurred_at ON deliveries BEGIN
              UPDATE report_delivery_buckets SET delivered = delivered - 1 WHERE bucket = old.occurred_at / 900000;
              INSERT INTO report_delivery_buckets (bucket, delivered) VALUES (new.occurred_at / 900000, 1)
                ON CONFLICT(bucket) DO UPDATE SET delivered = delivered + 1;
            END;
            """)
}
