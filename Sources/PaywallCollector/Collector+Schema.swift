import PaywallSQLite

extension Collector {
    /// The collector's own tables, created by its migrations (recorded as `collector/…`) after the
    /// store's in the same file. Register them where the program opens the store:
    ///
    /// ```swift
    /// let connection = try Schema.open(path: path, registering: [ReportSchema.migrations, Collector.migrations])
    /// ```
    ///
    /// - `write_keys`: one row per named write key, holding only the SHA-256 of the key (lowercase
    ///   hex), never the key; `revoked_at` set by `keys revoke` (a revoked row is kept, so a name is
    ///   never silently reused for another key).
    /// - `collector/key-kinds` adds `kind` to `write_keys`: `write` (opens `POST /v1/events`; every key
    ///   made before this migration is one) or `webhook` (a RevenueCat webhook secret, opens only
    ///   `POST /v1/revenuecat/webhooks`). Both kinds share one namespace of names.
    public static let migrations = MigrationGroup(
        owner: "collector",
        [
            Migration(
                "write-keys",
                sql: """
                    CREATE TABLE write_keys (
                      name TEXT PRIMARY KEY NOT NULL, key_sha256 TEXT NOT NULL UNIQUE,
                      created_at INTEGER NOT NULL, revoked_at INTEGER) STRICT;
                    """),
            Migration(
                "key-kinds",
                sql: """
                    ALTER TABLE write_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'write'
                      CHECK (kind IN ('write', 'webhook'));
                    """),
        ])

    /// The tables the collector's migrations create.
    public static let tables = ["write_keys"]
}
