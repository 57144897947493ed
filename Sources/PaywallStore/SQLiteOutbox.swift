import Foundation
import PaywallCore
import PaywallSQLite

/// ``EventOutbox`` on the shared schema: the `outbox` and `dead_letters` tables, and the
/// forwarding lease as a row of `meta` (`forwarder.lease` = `"<expires_at_ms> <owner>"`),
/// taken in an `IMMEDIATE` transaction so one pass at a time holds it across processes.
///
/// ```swift
/// let store = try EventStore(path: path, now: .system)
/// let forwarder = Forwarder(outbox: SQLiteOutbox(store: store), transport: URLSessionTransport(),
///                           configuration: configuration, now: .system)
/// ```
public final class SQLiteOutbox: EventOutbox {
    /// The `meta` key holding the lease.
    public static let leaseKey = "forwarder.lease"
    private let connection: Connection

    /// Uses `connection`, which must have been opened with ``Schema/open(path:options:)``.
    public init(connection: Connection) { self.connection = connection }

    /// Uses the store's connection.
    public convenience init(store: EventStore) { self.init(connection: store.connection) }

    /// Takes the lease unless another owner holds an unexpired one; the same owner renews it.
    /// - Throws: `StorageError` (`.busy` when another process keeps the database locked).
    public func acquireLease(owner: String, now: Int64, durationMs: Int64) throws -> Bool {
        try connection.transaction(.immediate) { db in
            if let value = try db.scalar("SELECT value FROM meta WHERE key = ?1", [.text(Self.leaseKey)])?.string,
               let lease = Self.parseLease(value), lease.owner != owner, lease.expiresAt > now {
                return false
            }
            try db.run("INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                       [.text(Self.leaseKey), .text("\(now + durationMs) \(owner)")])
            return true
        }
    }

    /// Deletes the lease row if `owner` holds it.
    public func releaseLease(owner: String) throws {
        try connection.transaction(.immediate) { db in
            if let value = try db.scalar("SELECT value FROM meta WHERE key = ?1", [.text(Self.leaseKey)])?.string,
               Self.parseLease(value)?.owner == owner {
                try db.run("DELETE FROM meta WHERE key = ?1", [.text(Self.leaseKey)])
            }
        }
    }

    /// The current lease as `(owner, expiresAt)`, if a row exists (expired or not).
    public func lease() throws -> (owner: String, expiresAt: Int64)? {
        try connection.scalar("SELECT value FROM meta WHERE key = ?1", [.text(Self.leaseKey)])?.string.flatMap(Self.parseLease)
    }

    /// The `limit` pending impressions that have been due longest (the `(state, next_attempt_at)`
    /// index order, so the query stays O(limit) however large the backlog), returned in
    /// `occurred_at` order, ties by id.
    public func due(now: Int64, limit: Int) throws -> [OutboxItem] {
        try connection.withDatabase { db in
            let statement = try db.cachedStatement(Self.dueSQL)
            statement.bind(now, at: 1)
            statement.bind(Int64(limit), at: 2)
            var items: [OutboxItem] = []
            try statement.forEachRow { row in
                // The store writes canonical ids; a row whose id does not parse is left alone.
                if let event = Self.event(from: row) { items.append(OutboxItem(event: event, attempts: Int(row.int64(at: 15)))) }
                return true
            }
            return items
        }
    }

    /// The earliest `next_attempt_at` among pending rows.
    public func nextAttemptTime() throws -> Int64? {
        try connection.scalar("SELECT min(next_attempt_at) FROM outbox WHERE state = 'pending'")?.int64
    }

    /// Sets pending rows to `delivered` at `at`.
    public func markDelivered(_ ids: [UUID], at: Int64) throws {
        try update(ids, sql: "UPDATE outbox SET state = 'delivered', delivered_at = ?2 WHERE event_id = ?1 AND state = 'pending'",
                   values: [.integer(at)])
    }

    /// Stores the attempt count and the earliest next attempt of pending rows.
    public func scheduleRetry(_ ids: [UUID], attempts: Int, notBefore: Int64) throws {
        try update(ids, sql: "UPDATE outbox SET attempts = ?2, next_attempt_at = ?3 WHERE event_id = ?1 AND state = 'pending'",
                   values: [.integer(Int64(attempts)), .integer(notBefore)])
    }

    /// Sets pending rows to `dead` and appends their refusal to `dead_letters`, in one transaction.
    public func deadLetter(_ ids: [UUID], status: Int, reason: String, at: Int64) throws {
        try connection.transaction(.immediate) { db in
            let markDead = try db.cachedStatement("UPDATE outbox SET state = 'dead' WHERE event_id = ?1 AND state = 'pending'")
            let record = try db.cachedStatement(
                "INSERT INTO dead_letters (event_id, status, reason, dead_at) VALUES (?1, ?2, ?3, ?4)")
            for id in ids {
                markDead.bind(id.uuidString, at: 1)
                try markDead.run()
                guard db.changes == 1 else { continue }
                record.bind([.text(id.uuidString), .integer(Int64(status)), .text(reason), .integer(at)])
                try record.run()
            }
        }
    }

    /// Makes every dead row pending again (attempts reset, due at `now`) and stamps the open
    /// dead-letter records as requeued; returns how many rows were requeued.
    public func requeueDeadLetters(now: Int64) throws -> Int {
        try connection.transaction(.immediate) { db in
            try db.run("UPDATE dead_letters SET requeued_at = ?1 WHERE requeued_at IS NULL", [.integer(now)])
            return try db.run("UPDATE outbox SET state = 'pending', attempts = 0, next_attempt_at = ?1 WHERE state = 'dead'",
                              [.integer(now)])
        }
    }

    private func update(_ ids: [UUID], sql: String, values: [SQLValue]) throws {
        try connection.transaction(.immediate) { db in
            let statement = try db.cachedStatement(sql)
            for id in ids {
                statement.bind([.text(id.uuidString)] + values)
                try statement.run()
            }
        }
    }

    static let dueSQL = """
        SELECT e.id, e.name, e.occurred_at, e.recorded_at, e.user_id, e.session_id, e.catalog_version,
               e.pw_id, e.source, e.offering_id, e.placement_id, e.product, e.result, e.via, e.open_s, o.attempts
        FROM (SELECT event_id, attempts FROM outbox
              WHERE state = 'pending' AND next_attempt_at <= ?1
              ORDER BY next_attempt_at LIMIT ?2) AS o
        JOIN events AS e ON e.id = o.event_id
        ORDER BY e.occurred_at, e.id
        """

    private static func event(from row: Row) -> EventRecord? {
        let uuid = { (index: Int) in row.string(at: index).flatMap(UUID.init(uuidString:)) }
        guard let id = uuid(0), let pwID = uuid(7) else { return nil }
        return EventRecord(
            id: id,
            name: row.string(at: 1).flatMap(EventName.init(rawValue:)) ?? .paywallShown,
            occurredAt: row.int64(at: 2),
            recordedAt: row.optionalInt64(at: 3),
            userID: row.string(at: 4) ?? "",
            sessionID: uuid(5),
            catalogVersion: Int(row.int64(at: 6)),
            properties: EventProperties(
                pwID: pwID,
                source: row.string(at: 8) ?? "",
                offeringID: row.string(at: 9),
                placementID: row.string(at: 10),
                product: row.string(at: 11),
                result: row.string(at: 12).flatMap(CloseResult.init(rawValue:)),
                via: row.string(at: 13).flatMap(CloseVia.init(rawValue:)),
                openS: row.double(at: 14)
            )
        )
    }

    private static func parseLease(_ value: String) -> (owner: String, expiresAt: Int64)? {
        guard let space = value.firstIndex(of: " "), let expiresAt = Int64(value[..<space]) else { return nil }
        return (String(value[value.index(after: space)...]), expiresAt)
    }
}
