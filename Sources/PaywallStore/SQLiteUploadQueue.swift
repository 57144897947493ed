import Foundation
import PaywallCore
import PaywallSQLite

/// ``EventUploadQueue`` on the shared schema: events read in `seq` order after the `upload_cursor`
/// row of the collector, the cursor advanced (and, when the collector forwards, the acknowledged
/// impressions handed over from the outbox) in one transaction, the uploader's lease as the `meta`
/// row `uploader.lease`, and the collector's pause in `delivery_pauses`.
///
/// ```swift
/// let store = try EventStore(path: path, now: .system)
/// let queue = SQLiteUploadQueue(store: store)
/// let uploader = Uploader(queue: queue, transport: URLSessionTransport(), configuration: configuration, now: .system)
/// ```
public final class SQLiteUploadQueue: EventUploadQueue {
    /// The `meta` key holding the uploader's lease.
    public static let leaseKey = "uploader.lease"
    /// The `upload_cursor` row of the collector.
    public static let destination = DeliveryDestinationName.collector
    private let connection: Connection

    /// Uses `connection`, which must have been opened with ``Schema/open(path:options:registering:)``.
    public init(connection: Connection) { self.connection = connection }

    /// Uses the store's connection.
    public convenience init(store: EventStore) { self.init(connection: store.connection) }

    /// Takes the uploader's lease unless another owner holds an unexpired one.
    public func acquireLease(owner: String, now: Int64, durationMs: Int64) throws -> Bool {
        try SQLiteLease(connection: connection, key: Self.leaseKey).acquire(
            owner: owner, now: now, durationMs: durationMs)
    }

    /// Gives the uploader's lease back if `owner` holds it.
    public func releaseLease(owner: String) throws {
        try SQLiteLease(connection: connection, key: Self.leaseKey).release(owner: owner)
    }

    /// The stored pause of `destination`.
    public func pause(of destination: String) throws -> DeliveryPause? {
        try SQLiteDeliveryPauses(connection: connection).pause(of: destination)
    }

    /// Stores the pause of `destination`.
    public func setPause(_ pause: DeliveryPause, of destination: String) throws {
        try SQLiteDeliveryPauses(connection: connection).setPause(pause, of: destination)
    }

    /// Removes the pause of `destination`.
    public func clearPause(of destination: String) throws {
        try SQLiteDeliveryPauses(connection: connection).clearPause(of: destination)
    }

    /// The highest `seq` the collector acknowledged, 0 before the first acknowledgement.
    public func uploadCursor() throws -> Int64 {
        try connection.scalar(
            "SELECT acknowledged_seq FROM upload_cursor WHERE destination = ?1",
            [.text(Self.destination)])?.int64 ?? 0
    }

    /// Events not acknowledged yet: up to `limit` with `seq` greater than `seq`, in `seq` order, each
    /// impression with whether this store's own forwarder delivered it already.
    public func events(after seq: Int64, limit: Int) throws -> [UploadItem] {
        try connection.withDatabase { db in
            let statement = try db.cachedStatement(Self.eventsSQL)
            statement.bind(seq, at: 1)
            statement.bind(Int64(limit), at: 2)
            var items: [UploadItem] = []
            items.reserveCapacity(limit)
            try statement.forEachRow { row in
                // The store writes canonical ids; a row whose id does not parse cannot be sent and is
                // passed over (the cursor moves past it with the rest of its batch).
                // An unknown name stops the pass (StoredEventError): never a wrong event sent.
                if let event = try StoredEventRow.event(from: row) {
                    items.append(
                        UploadItem(
                            seq: row.int64(at: Self.seqColumn), event: event,
                            forwardedHere: row.int64(at: Self.forwardedHereColumn) == 1))
                }
                return true
            }
            return items
        }
    }

    /// Advances the cursor to `seq` (never back) and, with `handOffImpressions`, moves the impressions
    /// up to `seq` still in the outbox to `deliveries` as handed to the collector (`to_collector`), in
    /// one transaction: the collector's 2xx is recorded whole or not at all.
    public func acknowledge(through seq: Int64, handOffImpressions: Bool, at: Int64) throws {
        try connection.transaction(.immediate) { db in
            let previous =
                try db.int64(
                    "SELECT acknowledged_seq FROM upload_cursor WHERE destination = ?1",
                    [.text(Self.destination)]) ?? 0
            guard seq > previous else { return }
            try db.run(
                """
                INSERT INTO upload_cursor (destination, acknowledged_seq, acknowledged_at) VALUES (?1, ?2, ?3)
                ON CONFLICT(destination) DO UPDATE SET acknowledged_seq = excluded.acknowledged_seq,
                  acknowledged_at = excluded.acknowledged_at
                """, [.text(Self.destination), .integer(seq), .integer(at)])
            guard handOffImpressions else { return }
            let taken = try db.all(
                """
                DELETE FROM outbox WHERE event_rowid > ?1 AND event_rowid <= ?2 RETURNING event_rowid, occurred_at
                """, [.integer(previous), .integer(seq)]
            ) { ($0.int64(at: 0), $0.int64(at: 1)) }
            for (rowid, occurredAt) in taken {
                try Deliveries.record(db, eventRowid: rowid, occurredAt: occurredAt, deliveredAt: at, toCollector: true)
            }
        }
    }

    /// Events after the cursor: the event's columns (``EventColumn/record``), `seq` (``seqColumn``),
    /// then whether this store's own forwarder delivered the impression (``forwardedHereColumn``: a
    /// delivery neither by a device nor handed to a collector).
    static let eventsSQL = """
        SELECT \(EventColumn.list(prefix: "e.")), e.seq,
               e.name = 'paywall_shown' AND EXISTS (
                 SELECT 1 FROM deliveries AS d WHERE d.event_rowid = e.seq AND d.to_collector = 0 AND d.by_device = 0)
        FROM events AS e WHERE e.seq > ?1 ORDER BY e.seq LIMIT ?2
        """

    /// The index of `e.seq` in ``eventsSQL``.
    static let seqColumn = EventColumn.record.count
    /// The index of the forwarded-here flag in ``eventsSQL``.
    static let forwardedHereColumn = EventColumn.record.count + 1
}
