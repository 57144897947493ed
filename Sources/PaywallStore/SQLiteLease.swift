import PaywallSQLite

/// A delivery lease as a row of `meta` (`<key>` = `"<expires_at_ms> <owner>"`), taken in an
/// `IMMEDIATE` transaction so one pass at a time holds it across processes. The forwarder's
/// (``SQLiteOutbox/leaseKey``) and the uploader's (``SQLiteUploadQueue/leaseKey``) leases are two
/// keys of this one mechanism. A lease whose holder's process has ended is taken over at once
/// (``LeaseLiveness``), not only when it expires.
struct SQLiteLease: Sendable {
    let connection: Connection
    let key: String

    /// Takes the lease unless another owner holds an unexpired one whose process is still alive
    /// (``LeaseLiveness``); the same owner renews it.
    func acquire(owner: String, now: Int64, durationMs: Int64) throws -> Bool {
        let lockPath = LeaseLiveness.lockPath(databasePath: connection.path, key: key)
        let taken = try connection.transaction(.immediate) { db in
            if let value = try db.scalar("SELECT value FROM meta WHERE key = ?1", [.text(key)])?.string,
                let lease = Self.parse(value), lease.owner != owner, lease.expiresAt > now
            {
                guard let lockPath, LeaseLiveness.isGone(owner: lease.owner, lockPath: lockPath) else { return false }
            }
            try db.run(
                "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [.text(key), .text("\(now + durationMs) \(owner)")])
            return true
        }
        if taken, let lockPath { LeaseLiveness.hold(owner: owner, lockPath: lockPath) }
        return taken
    }

    /// Deletes the lease row if `owner` holds it, and gives up its liveness lock.
    func release(owner: String) throws {
        defer {
            if let lockPath = LeaseLiveness.lockPath(databasePath: connection.path, key: key) {
                LeaseLiveness.release(owner: owner, lockPath: lockPath)
            }
        }
        try connection.transaction(.immediate) { db in
            if let value = try db.scalar("SELECT value FROM meta WHERE key = ?1", [.text(key)])?.string,
                Self.parse(value)?.owner == owner
            {
                try db.run("DELETE FROM meta WHERE key = ?1", [.text(key)])
            }
        }
    }

    /// The current lease, if a row exists (expired or not).
    func current() throws -> (owner: String, expiresAt: Int64)? {
        try connection.scalar("SELECT value FROM meta WHERE key = ?1", [.text(key)])?.string.flatMap(Self.parse)
    }

    static func parse(_ value: String) -> (owner: String, expiresAt: Int64)? {
        guard let space = value.firstIndex(of: " "), let expiresAt = Int64(value[..<space]) else { return nil }
        return (String(value[value.index(after: space)...]), expiresAt)
    }
}
