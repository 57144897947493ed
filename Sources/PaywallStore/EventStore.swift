import Foundation
import PaywallCore
import PaywallSQLite

/// The SQLite event store: idempotent inserts by event id, impressions into the outbox in the
/// same transaction, quarantine, drop counts and statistics.
///
/// ```swift
/// let store = try EventStore(path: "events.sqlite", now: .system)
/// try store.insert([event])          // stored once, however often it is inserted
/// let stats = try store.stats()
/// ```
public final class EventStore: Sendable {
    /// The underlying connection (one serializer; shared with the recorder and import).
    public let connection: Connection
    /// Where `recorded_at` and quarantine times come from.
    public let now: Now

    /// Opens (creating with mode 0600 and migrating as needed) the store at `path`.
    ///
    /// - Throws: `StorageError`: `.schemaTooNew` (file left untouched), `.corrupt` (not a
    ///   database), `.readOnly`, `.cannotOpen`, `.busy`, `.walUnavailable`.
    public convenience init(path: String, options: OpenOptions = .default, now: Now) throws {
        self.init(connection: try Schema.open(path: path, options: options), now: now)
    }

    /// Wraps a connection already opened with ``Schema/open(path:options:)``.
    public init(connection: Connection, now: Now) {
        self.connection = connection
        self.now = now
    }

    /// The database file path.
    public var path: String { connection.path }

    /// Stores `events` in one transaction; an event identical to a stored one (same id and content)
    /// is skipped as a duplicate; one with other content under a stored id is a conflict: the stored
    /// row is kept and the new version goes to the quarantine with what differs.
    /// Newly stored impressions enter the outbox (pending), or `deliveries` (delivered now) when
    /// `forwarded` says RevenueCat already has them; an id already stored adds nothing anywhere.
    ///
    /// - Parameters:
    ///   - droppedAtBound: events the recorder dropped at its bound, persisted in `drops`.
    /// - Returns: how many events were new (neither duplicates nor conflicts).
    /// - Throws: `StorageError`; on failure nothing of the batch is stored.
    @discardableResult
    public func insert(
        _ events: [EventRecord], forwarded: Bool = false, droppedAtBound: Int = 0,
        durable: Bool = false
    ) throws -> Int {
        try insert(sequence: events, forwarded: forwarded, droppedAtBound: droppedAtBound, durable: durable)
    }

    /// ``insert(_:forwarded:droppedAtBound:durable:)`` for any collection (the recorder's segments).
    @discardableResult
    func insert<Events: Collection<EventRecord>>(
        sequence events: Events, forwarded: Bool = false, droppedAtBound: Int = 0,
        durable: Bool = false
    ) throws -> Int {
        try insertReporting(events, forwarded: forwarded, droppedAtBound: droppedAtBound, durable: durable).inserted
    }

    /// Stores `events` in one transaction and says what became of each: inserted, duplicate, or
    /// conflict (other content under a stored id: quarantined with `provenance`, the stored row kept).
    func insertReporting<Events: Collection<EventRecord>>(
        _ events: Events, forwarded: Bool = false,
        droppedAtBound: Int = 0, durable: Bool = false,
        provenance: EventProvenance = .unknown
    ) throws -> InsertOutcome {
        let time = now.milliseconds()
        return try connection.withDatabase { db in
            if durable { try db.execute("PRAGMA synchronous = FULL") }
            defer { if durable { try? db.execute("PRAGMA synchronous = NORMAL") } }
            return try db.transaction(.immediate) {
                let writer = EventWriter(db: db)
                let outcome = try writer.insert(events, recordedAt: time, forwarded: forwarded, provenance: provenance)
                for entry in outcome.conflictEntries { try writer.quarantine(entry) }
                try writer.recordDrops(droppedAtBound, at: time)
                return outcome
            }
        }
    }

    /// Stores quarantine entries in one transaction; a payload already quarantined is not stored
    /// again. Returns how many were new.
    ///
    /// - Throws: `StorageError`.
    @discardableResult
    public func quarantine(_ entries: [QuarantineEntry]) throws -> Int {
        try connection.transaction { db in
            let writer = EventWriter(db: db)
            var stored = 0
            for entry in entries where try writer.quarantine(entry) { stored += 1 }
            return stored
        }
    }

    /// Whether an event with `id` is stored.
    public func contains(_ id: UUID) throws -> Bool {
        try connection.scalar("SELECT count(*) FROM events WHERE id = ?", [.text(id.uuidString)])?.int64 == 1
    }
}
