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
    public static let migrations = MigrationGroup(
        owner: "collector",
        [
            Migration(
                "write-keys",
                sql: """
                    CREATE TABLE write_keys (
                      name TEXT PRIMARY KEY NOT NULL, key_sha256 TEXT NOT NULL UNIQUE,
                      created_at INTEGER NOT NULL, revoked_at INTEGER) STRICT;
                    """)
        ])

    /// The tables the collector's migrations create.
    public static let tables = ["write_keys"]
}
