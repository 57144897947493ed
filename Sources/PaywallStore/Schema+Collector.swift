import PaywallSQLite

extension Schema {
    /// Migration 10, the collector's (`serve`):
    /// - `write_keys`: one row per named write key, holding only the SHA-256 of the key (lowercase
    ///   hex), never the key; `revoked_at` set by `keys revoke` (a revoked row is kept, so a name is
    ///   never silently reused for another key).
    /// - `deliveries.by_device`: 1 when the impression was forwarded to RevenueCat by the app install
    ///   that uploaded it (`X-Paywall-Forwarding: device`), 0 when by this store's forwarder (or
    ///   imported with `--no-forward`). A partial index keeps the count of device deliveries cheap.
    static let collectorWriteKeysAndDeviceDeliveries = Migration("collector-write-keys-and-device-deliveries", sql: """
        CREATE TABLE write_keys (
          name TEXT PRIMARY KEY NOT NULL, key_sha256 TEXT NOT NULL UNIQUE,
          created_at INTEGER NOT NULL, revoked_at INTEGER) STRICT;
        ALTER TABLE deliveries ADD COLUMN by_device INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX deliveries_by_device ON deliveries (event_rowid) WHERE by_device = 1;
        """)
}
