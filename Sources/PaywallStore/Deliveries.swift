import Foundation
import PaywallCore
import PaywallSQLite

/// Moves of impressions between the outbox, `deliveries` and the dead letters (migration 6): each
/// stored impression is in exactly one of them. Statements run on a ``Database`` already inside a
/// transaction; ids are found through the `events` id index, rows by `events.rowid`.
enum Deliveries {
    /// Adds the delivery of the impression `events.rowid` = `eventRowid` (the triggers on
    /// `deliveries` count it in `report_delivery_buckets`). Upsert: a stale row of a reused rowid
    /// is overwritten, never a failed batch; the update trigger moves its bucket count. `byDevice`:
    /// the app install forwarded it itself (`by_device`, migration store/deliveries-by-device), not this store's forwarder.
    /// `toCollector`: it left the outbox because a collector that forwards it acknowledged its upload
    /// (`to_collector`, migration store/upload-cursor-and-delivery-pauses).
    static func record(
        _ db: Database, eventRowid: Int64, occurredAt: Int64, deliveredAt: Int64,
        byDevice: Bool = false, toCollector: Bool = false
    ) throws {
        let insert = try db.cachedStatement(
            """
            INSERT INTO deliveries (event_rowid, occurred_at, delivered_at, by_device, to_collector) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT(event_rowid) DO UPDATE SET occurred_at = excluded.occurred_at, delivered_at = excluded.delivered_at,
              by_device = excluded.by_device, to_collector = excluded.to_collector
            """)
        insert.bind(eventRowid, at: 1)
        insert.bind(occurredAt, at: 2)
        insert.bind(deliveredAt, at: 3)
        insert.bind(Int64(byDevice ? 1 : 0), at: 4)
        insert.bind(Int64(toCollector ? 1 : 0), at: 5)
        try insert.run()
    }

    /// Removes the impression `id` from the outbox; returns its rowid and `occurred_at`, or `nil`
    /// when it is not pending (unknown, delivered or dead: late outcomes change nothing).
    static func take(_ db: Database, id: UUID) throws -> (rowid: Int64, occurredAt: Int64)? {
        let take = try db.cachedStatement(
            """
            DELETE FROM outbox WHERE event_rowid = (SELECT rowid FROM events WHERE id = ?1)
            RETURNING event_rowid, occurred_at
            """)
        defer { take.reset() }
        UUIDText.withCanonical(id) { take.bindText($0, at: 1) }
        guard try take.step() else { return nil }
        let taken = (take.row.int64(at: 0), take.row.int64(at: 1))
        while try take.step() {}
        return taken
    }
}
