import PaywallSQLite

/// Keeps events rowids (`seq`) from being reused after an erasure. SQLite gives a new row the
/// largest rowid plus one, so erasing the newest events would hand their rowids to the next events;
/// the reports' watermark, the outbox, the deliveries and an upload cursor all key on rowids and
/// would skip or confuse those. ``UserErasure`` records the largest rowid it removed (`meta` key
/// ``key``); the next write starts above it, and the key goes once a larger rowid is stored.
enum SequenceFloor {
    /// `meta` key: the largest events rowid ever used, when erasures removed the newest rows.
    static let key = "store.events_seq_floor"

    /// The floor to start above, or `nil` when the stored rowids are already above it (the key is
    /// then removed) or no erasure set one. One indexed probe when no floor is set.
    static func pending(_ db: Database) throws -> Int64? {
        let read = try db.cachedStatement("SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1")
        defer { read.reset() }
        read.bind(key, at: 1)
        guard try read.step() else { return nil }
        let floor = read.row.int64(at: 0)
        read.reset()
        let top = try db.int64("SELECT coalesce(max(seq), 0) FROM events") ?? 0
        if top >= floor {
            try db.run("DELETE FROM meta WHERE key = ?1", [.text(key)])
            return nil
        }
        return floor
    }

    /// Raises the floor to `largest` (the largest rowid about to be erased), inside the erasing transaction.
    static func raise(to largest: Int64, _ db: Database) throws {
        try db.run(
            """
            INSERT INTO meta (key, value) VALUES (?1, CAST(?2 AS TEXT))
            ON CONFLICT (key) DO UPDATE SET value = CAST(max(CAST(value AS INTEGER), ?2) AS TEXT)
            """, [.text(key), .integer(largest)])
    }
}
