import PaywallSQLite

extension Schema {
    /// The uploader's cursor and the destinations' pauses:
    /// - `upload_cursor`: per destination (`collector`), the highest `events.seq` it acknowledged,
    ///   advanced in the transaction that records the 2xx. `seq` is the events' INTEGER PRIMARY KEY,
    ///   so the cursor survives `VACUUM`; retention never deletes the highest `seq`, so none is reused.
    /// - `delivery_pauses`: per destination (`revenuecat`, `collector`), the time before which no
    ///   batch is sent (after a `Retry-After`, a 5xx, a 429 or a network failure), with the failures
    ///   in a row and the reason; every process reads it before sending.
    /// - `deliveries.to_collector`: 1 when the impression left the outbox because it was uploaded to a
    ///   collector that forwards it (`X-Paywall-Forwarding: collector`); this store never sends it.
    /// - `retention_deletions`: one row per pruning that deleted events (device retention), with how
    ///   many; `stats` shows the total.
    static let uploadCursorAndPauses = Migration(
        "upload-cursor-and-delivery-pauses",
        sql: """
            CREATE TABLE upload_cursor (
              destination TEXT PRIMARY KEY NOT NULL, acknowledged_seq INTEGER NOT NULL,
              acknowledged_at INTEGER NOT NULL) STRICT;
            CREATE TABLE delivery_pauses (
              destination TEXT PRIMARY KEY NOT NULL, paused_until INTEGER NOT NULL, failures INTEGER NOT NULL,
              reason TEXT NOT NULL) STRICT;
            ALTER TABLE deliveries ADD COLUMN to_collector INTEGER NOT NULL DEFAULT 0;
            CREATE TABLE retention_deletions (deleted_at INTEGER NOT NULL, count INTEGER NOT NULL) STRICT;
            """)
}
