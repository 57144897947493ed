import Foundation
import PaywallCore
import PaywallSQLite

/// ``EventOutbox`` on the shared schema: the `outbox` (pending impressions by events rowid),
/// `deliveries` and `dead_letters` tables (see ``Schema/outboxKeyedByEventRowid``), and the
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
        try SQLiteLease(connection: connection, key: Self.leaseKey).acquire(
            owner: owner, now: now, durationMs: durationMs)
    }

    /// Deletes the lease row if `owner` holds it.
    public func releaseLease(owner: String) throws {
        try SQLiteLease(connection: connection, key: Self.leaseKey).release(owner: owner)
    }

    /// The current lease as `(owner, expiresAt)`, if a row exists (expired or not).
    public func lease() throws -> (owner: String, expiresAt: Int64)? {
        try SQLiteLease(connection: connection, key: Self.leaseKey).current()
    }

    /// The stored pause of `destination` (``SQLiteDeliveryPauses``).
    public func pause(of destination: String) throws -> DeliveryPause? {
        try SQLiteDeliveryPauses(connection: connection).pause(of: destination)
    }

    /// Stores the pause of `destination` (``SQLiteDeliveryPauses``).
    public func setPause(_ pause: DeliveryPause, of destination: String) throws {
        try SQLiteDeliveryPauses(connection: connection).setPause(pause, of: destination)
    }

    /// Removes the pause of `destination` (``SQLiteDeliveryPauses``).
    public func clearPause(of destination: String) throws {
        try SQLiteDeliveryPauses(connection: connection).clearPause(of: destination)
    }

    /// The `limit` oldest stored (lowest rowid) pending impressions that are due, returned in
    /// `occurred_at` order, ties by id. The outbox holds pending impressions only, in rowid order,
    /// so the query reads about `limit` rows plus those waiting for a later retry, however large
    /// the delivery history.
    public func due(now: Int64, limit: Int) throws -> [OutboxItem] {
        try connection.withDatabase { db in
            let statement = try db.cachedStatement(Self.dueSQL)
            statement.bind(now, at: 1)
            statement.bind(Int64(limit), at: 2)
            var items: [OutboxItem] = []
            try statement.forEachRow { row in
                // The store writes canonical ids; a row whose id does not parse is left alone. An
                // unknown name stops the pass (StoredEventError): never a wrong event sent.
                if let event = try StoredEventRow.event(from: row) {
                    items.append(OutboxItem(event: event, attempts: Int(row.int64(at: Self.attemptsColumn))))
                }
                return true
            }
            return items
        }
    }

    /// The earliest `next_attempt_at` in the outbox (pending impressions only).
    public func nextAttemptTime() throws -> Int64? {
        try connection.scalar("SELECT min(next_attempt_at) FROM outbox")?.int64
    }

    /// Moves pending impressions to `deliveries`, delivered at `at`; others are left alone.
    public func markDelivered(_ ids: [UUID], at: Int64) throws {
        try connection.transaction(.immediate) { db in
            for id in ids {
                guard let taken = try Deliveries.take(db, id: id) else { continue }
                try Deliveries.record(db, eventRowid: taken.rowid, occurredAt: taken.occurredAt, deliveredAt: at)
            }
        }
    }

    /// Stores the attempt count and the earliest next attempt of pending impressions.
    public func scheduleRetry(_ ids: [UUID], attempts: Int, notBefore: Int64) throws {
        try connection.transaction(.immediate) { db in
            let statement = try db.cachedStatement(
                """
                UPDATE outbox SET attempts = ?2, next_attempt_at = ?3
                WHERE event_rowid = (SELECT rowid FROM events WHERE id = ?1)
                """)
            for id in ids {
                UUIDText.withCanonical(id) { statement.bindText($0, at: 1) }
                statement.bind(Int64(attempts), at: 2)
                statement.bind(notBefore, at: 3)
                try statement.run()
            }
        }
    }

    /// Takes pending impressions out of the outbox and records their refusal in `dead_letters`
    /// (the open record is what marks them dead), in one transaction.
    public func deadLetter(_ ids: [UUID], status: Int, reason: String, at: Int64) throws {
        try connection.transaction(.immediate) { db in
            let record = try db.cachedStatement(
                "INSERT INTO dead_letters (event_id, status, reason, dead_at) VALUES (?1, ?2, ?3, ?4)")
            for id in ids {
                guard try Deliveries.take(db, id: id) != nil else { continue }
                record.bind([.text(id.uuidString), .integer(Int64(status)), .text(reason), .integer(at)])
                try record.run()
            }
        }
    }

    /// Puts every impression with an open dead letter back into the outbox (attempts reset, due at
    /// `now`) and stamps those records as requeued; returns how many impressions were requeued.
    public func requeueDeadLetters(now: Int64) throws -> Int {
        try connection.transaction(.immediate) { db in
            let requeued = try db.run(Self.requeueSQL, [.integer(now)])
            try db.run("UPDATE dead_letters SET requeued_at = ?1 WHERE requeued_at IS NULL", [.integer(now)])
            return requeued
        }
    }

    /// Impressions with an open dead letter, back into the outbox (never one already delivered).
    static let requeueSQL = """
        INSERT OR REPLACE INTO outbox (event_rowid, occurred_at, attempts, next_attempt_at)
        SELECT e.rowid, e.occurred_at, 0, ?1
        FROM (SELECT DISTINCT event_id FROM dead_letters WHERE requeued_at IS NULL) AS d
        CROSS JOIN events AS e ON e.id = d.event_id
        WHERE e.name = 'paywall_shown' AND NOT EXISTS (SELECT 1 FROM deliveries AS v WHERE v.event_rowid = e.rowid)
        """

    /// The event's columns (``EventColumn/record``), then the attempts so far (``attemptsColumn``).
    static let dueSQL = """
        SELECT \(EventColumn.list(prefix: "e.")), o.attempts
        FROM (SELECT event_rowid, attempts FROM outbox
              WHERE next_attempt_at <= ?1
              ORDER BY event_rowid LIMIT ?2) AS o
        JOIN events AS e ON e.rowid = o.event_rowid
        ORDER BY e.occurred_at, e.id
        """

    /// The index of `o.attempts` in ``dueSQL``.
    static let attemptsColumn = EventColumn.record.count
}
