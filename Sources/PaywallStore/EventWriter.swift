import Foundation
import PaywallCore
import PaywallSQLite

/// Writes events, outbox or delivery rows, quarantine rows and drop counts through prepared statements on a
/// ``Database`` already inside a transaction. Shared by the recorder, the store and import.
struct EventWriter {
    let db: Database

    static let insertEventSQL = """
        INSERT INTO events (id, name, occurred_at, recorded_at, user_id, session_id, catalog_version,
          pw_id, source, offering_id, placement_id, product, result, via, open_s)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
        ON CONFLICT(id) DO NOTHING
        """
    /// `OR REPLACE`: a stale row left by a reused rowid (events are never deleted, so this should
    /// not happen) must not make the batch fail; the new impression is pending.
    static let insertOutboxSQL = "INSERT OR REPLACE INTO outbox (event_rowid, occurred_at) VALUES (?1, ?2)"
    /// A repeat is recognised by the digest of the input's exact bytes (`?6`, unique); rows stored
    /// before digests existed are matched by their payload text, and only when the new payload is
    /// the whole input as valid UTF-8 (`?8`), which is what those rows held.
    static let insertQuarantineSQL = """
        INSERT INTO quarantine (quarantined_at, reasons, payload, origin, line, line_sha256, payload_raw)
        SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7
        WHERE NOT (?8 AND EXISTS (SELECT 1 FROM quarantine WHERE line_sha256 IS NULL AND payload = ?3))
        ON CONFLICT (line_sha256) DO NOTHING
        """
    static let insertDropsSQL = "INSERT INTO drops (dropped_at, count) VALUES (?1, ?2)"

    /// Inserts events not stored yet (idempotent by id); impressions newly stored (and only those:
    /// a duplicate changes no row) also enter the outbox as pending or, when `forwarded`, the
    /// deliveries as delivered at `recordedAt`.
    /// `byDevice` marks those deliveries as made by the app install (the collector's
    /// `X-Paywall-Forwarding: device`). Returns how many events were new.
    func insert<Events: Sequence<EventRecord>>(_ events: Events, recordedAt: Int64, forwarded: Bool = false,
                                               byDevice: Bool = false) throws -> Int {
        let insertEvent = try db.cachedStatement(Self.insertEventSQL)
        var insertOutbox: Statement?   // looked up once, at the first impression (not per row)
        var inserted = 0
        for event in events {
            let properties = event.properties
            UUIDText.withCanonical(event.id) { insertEvent.bindText($0, at: 1) }
            insertEvent.bind(event.name.rawValue, at: 2)
            insertEvent.bind(event.occurredAt, at: 3)
            insertEvent.bind(recordedAt, at: 4)
            insertEvent.bind(event.userID, at: 5)
            if let session = event.sessionID {
                UUIDText.withCanonical(session) { insertEvent.bindText($0, at: 6) }
            } else {
                insertEvent.bindNull(at: 6)
            }
            insertEvent.bind(Int64(event.catalogVersion), at: 7)
            UUIDText.withCanonical(properties.pwID) { insertEvent.bindText($0, at: 8) }
            insertEvent.bind(properties.source, at: 9)
            insertEvent.bind(properties.offeringID, at: 10)
            insertEvent.bind(properties.placementID, at: 11)
            insertEvent.bind(properties.product, at: 12)
            insertEvent.bind(properties.result?.rawValue, at: 13)
            insertEvent.bind(properties.via?.rawValue, at: 14)
            insertEvent.bind(properties.openS, at: 15)
            try insertEvent.run()
            guard db.changes == 1 else { continue }
            inserted += 1
            if event.name == .paywallShown {
                if forwarded {
                    try Deliveries.record(db, eventRowid: db.lastInsertRowID, occurredAt: event.occurredAt, deliveredAt: recordedAt,
                                          byDevice: byDevice)
                } else {
                    if insertOutbox == nil { insertOutbox = try db.cachedStatement(Self.insertOutboxSQL) }
                    insertOutbox!.bind(db.lastInsertRowID, at: 1)
                    insertOutbox!.bind(event.occurredAt, at: 2)
                    try insertOutbox!.run()
                }
            }
        }
        return inserted
    }

    /// Adds one quarantine row unless the same input (by its bytes) is already quarantined; returns whether it did.
    @discardableResult
    func quarantine(_ entry: QuarantineEntry) throws -> Bool {
        let statement = try db.cachedStatement(Self.insertQuarantineSQL)
        statement.bind(entry.quarantinedAt, at: 1)
        statement.bind(entry.reasons.joined(separator: "; "), at: 2)
        statement.bind(entry.payload, at: 3)
        statement.bind(entry.origin, at: 4)
        statement.bind(entry.line.map(Int64.init), at: 5)
        entry.identity.withUnsafeBytes { statement.bindBlob($0, at: 6) }
        if let raw = entry.rawPayload { raw.withUnsafeBytes { statement.bindBlob($0, at: 7) } } else { statement.bindNull(at: 7) }
        statement.bind(Int64(entry.payloadIsExact ? 1 : 0), at: 8)
        try statement.run()
        return db.changes == 1
    }

    /// Records `count` events dropped at the recorder's bound (nothing when zero).
    func recordDrops(_ count: Int, at time: Int64) throws {
        guard count > 0 else { return }
        let statement = try db.cachedStatement(Self.insertDropsSQL)
        statement.bind(time, at: 1)
        statement.bind(Int64(count), at: 2)
        try statement.run()
    }
}
