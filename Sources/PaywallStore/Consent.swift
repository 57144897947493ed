import PaywallSQLite

/// The install's consent choice (opt-out), kept in the store's `meta` (key ``optedOutKey``) so it
/// survives a restart. ``PaywallAnalytics``' `optOut()` and `optIn()` write it; the facade reads it on
/// open before anything is recorded.
public enum Consent {
    /// `meta` key: `"1"` while the install is opted out (absent otherwise).
    public static let optedOutKey = "consent.opted_out"

    /// Whether the store's install is opted out.
    ///
    /// - Throws: `StorageError`.
    public static func isOptedOut(_ store: EventStore) throws -> Bool {
        try store.connection.scalar("SELECT value FROM meta WHERE key = ?1", [.text(optedOutKey)])?.string == "1"
    }

    /// Records the choice (durably: the next open sees it).
    ///
    /// - Throws: `StorageError`.
    public static func setOptedOut(_ optedOut: Bool, _ store: EventStore) throws {
        try store.connection.transaction(.immediate) { db in
            if optedOut {
                _ = try db.run(
                    "INSERT INTO meta (key, value) VALUES (?1, '1') ON CONFLICT (key) DO UPDATE SET value = '1'",
                    [.text(optedOutKey)])
            } else {
                _ = try db.run("DELETE FROM meta WHERE key = ?1", [.text(optedOutKey)])
            }
        }
    }
}
