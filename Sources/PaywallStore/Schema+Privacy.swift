import PaywallSQLite

extension Schema {
    /// `store/privacy`: what `forget` and the suppression list need (see ``Suppression``).
    /// - `suppressions`: one row per forgotten customer, holding only the SHA-256 of a per-store salt
    ///   followed by the user id (``Suppression/hash(_:salt:)``), never the id; `since` is when it
    ///   was forgotten. The salt is the `meta` key ``Suppression/saltKey``.
    /// - `suppressed_events`: how many later events of forgotten customers were refused, per write
    ///   (`suppressed_at`, the write's time), as `drops` counts the recorder's drops.
    static let privacy = Migration(
        "privacy",
        sql: """
            CREATE TABLE suppressions (user_sha256 BLOB PRIMARY KEY NOT NULL, since INTEGER NOT NULL) STRICT, WITHOUT ROWID;
            CREATE TABLE suppressed_events (suppressed_at INTEGER NOT NULL, count INTEGER NOT NULL) STRICT;
            """)
}
