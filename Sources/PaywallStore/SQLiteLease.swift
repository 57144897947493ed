import PaywallLock
import PaywallSQLite

/// A delivery lease as a row of `meta` (`<key>` = `"<expires_at_ms> <owner>"`), taken in an
/// `IMMEDIATE` transaction so one pass at a time holds it across processes. The forwarder's
/// (``SQLiteOutbox/leaseKey``) and the uploader's (``SQLiteUploadQueue/leaseKey``) leases are two
/// keys of this one mechanism. A lease whose holder's process has ended is taken over at once
/// (``LeaseLiveness``), not only when it expires.
struct SQLiteLease: Sendable {
    let connection: Connection
    let key: String

    /// Takes the lease unless another owner holds an unexpired one whose process is not known to
    /// be gone (``LeaseLiveness``); the same owner renews it.
    func acquire(owner: String, now: Int64, durationMs: Int64) throws -> Bool {
        let lockPath = LeaseLiveness.lockPath(databasePath: connection.path, key: key)
        let slot = lockPath.map { $0 + "\n" + owner }
        let renewing = slot.map { slot in LeaseLiveness.held.withLock { $0[slot] != nil } } ?? false
        var liveness: LeaseLiveness?
        let taken: Bool
        do {
            taken = try take(owner: owner, now: now, durationMs: durationMs, lockPath: renewing ? nil : lockPath) {
                liveness = $0
            }
        } catch {
            liveness?.abandon()
            throw error
        }
        if let liveness {
            if taken, let slot {
                LeaseLiveness.held.withLock { $0[slot] = liveness }
            } else {
                liveness.abandon()
            }
        }
        return taken
    }

    /// The transaction of ``acquire(owner:now:durationMs:)``: takes the lock of `lockPath` (when
    /// given) inside it, handing it to `took` at once, and writes the row when the lease is free,
    /// expired, this owner's, or a gone owner's.
    private func take(
        owner: String, now: Int64, durationMs: Int64, lockPath: String?, took: (LeaseLiveness) -> Void
    ) throws -> Bool {
        try connection.transaction(.immediate) { db in
            let lease = try db.scalar("SELECT value FROM meta WHERE key = ?1", [.text(key)])?.string.flatMap(Self.parse)
            // The lock is taken inside the write transaction: a store that cannot be written gets no
            // lock file beside it.
            let liveness = lockPath.flatMap { LeaseLiveness(path: $0) }
            if let liveness { took(liveness) }
            var takingOverFrom: String?
            if let lease, lease.owner != owner, lease.expiresAt > now {
                guard let liveness, liveness.gone.contains(lease.owner) else { return false }
                takingOverFrom = lease.owner
            }
            // The file names this pass before its row is written, so a kill in between leaves a row
            // whose owner the file still names.
            liveness?.name([owner] + (takingOverFrom.map { [$0] } ?? []))
            try db.run(
                "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [.text(key), .text("\(now + durationMs) \(owner)")])
            return true
        }
    }

    /// Deletes the lease row if `owner` holds it, then removes its lock file and gives the lock up.
    func release(owner: String) throws {
        defer {
            if let lockPath = LeaseLiveness.lockPath(databasePath: connection.path, key: key) {
                LeaseLiveness.held.withLock { $0.removeValue(forKey: lockPath + "\n" + owner) }?.remove()
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
