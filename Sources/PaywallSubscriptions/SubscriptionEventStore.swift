import Foundation
import PaywallSQLite
import PaywallStore

/// Stores RevenueCat webhook bodies as subscription events: extracted into `subscription_events`
/// and `subscription_customer_keys` (``SubscriptionSchema``), deduplicated by `event.id`, with a
/// body that can never be an event kept in the store's quarantine and a forgotten customer's event
/// refused and counted. One call is one transaction, committed and synced to disk before it returns,
/// so a caller may acknowledge every body (RevenueCat delivers at least once and stops retrying
/// after an acknowledgement).
///
/// ```swift
/// let subscriptions = SubscriptionEventStore(connection: try SubscriptionSchema.open(path: path))
/// let outcomes = try subscriptions.ingest([body], receivedAtMs: now)   // [.stored]
/// ```
public final class SubscriptionEventStore: Sendable {
    /// The `origin` of quarantine rows from the collector's webhook route.
    public static let webhookOrigin = "revenuecat webhook"

    /// The store's connection (migrated with ``SubscriptionSchema/migrations``).
    public let connection: Connection

    /// Wraps a connection opened with the subscription migrations registered.
    public init(connection: Connection) {
        self.connection = connection
    }

    /// Ingests `bodies` in one transaction (see the type's summary) and says what became of each, in order.
    ///
    /// - Parameters:
    ///   - bodies: whole webhook bodies, as received.
    ///   - receivedAtMs: when they arrived (Unix milliseconds): `received_at_ms`, and the quarantine
    ///     and suppression time.
    ///   - origin: the quarantine's `origin` for refused bodies (``webhookOrigin``, or an imported file's name).
    ///   - lines: each body's 1-based line number in `origin` (an import), for the quarantine.
    /// - Throws: `StorageError`; then nothing of the batch is stored.
    public func ingest(
        _ bodies: [Data], receivedAtMs: Int64, origin: String = webhookOrigin, lines: [Int]? = nil
    ) throws -> [SubscriptionIngestOutcome] {
        precondition(lines == nil || lines?.count == bodies.count, "one line number per body")
        return try connection.withDatabase { db in
            try db.execute("PRAGMA synchronous = FULL")
            defer { try? db.execute("PRAGMA synchronous = NORMAL") }
            return try db.transaction(.immediate) {
                var writer = try Writer(db: db, receivedAtMs: receivedAtMs)
                return try bodies.enumerated().map { index, body in
                    try writer.ingest(body, origin: origin, line: lines?[index])
                }
            }
        }
    }
}

/// One ingest transaction's statements and state.
private struct Writer {
    static let insertSQL = """
        INSERT INTO subscription_events (
          rowid, id, type, environment, event_timestamp_ms, app_user_id, original_app_user_id, product_id,
          period_type, purchased_at_ms, expiration_at_ms, store, transaction_id, original_transaction_id,
          is_trial_conversion, presented_offering_id, price_micros, proceeds_micros, currency, received_at_ms,
          raw_body)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)
        ON CONFLICT (id) DO NOTHING
        """
    static let insertKeySQL = """
        INSERT INTO subscription_customer_keys (customer_key, event_rowid) VALUES (?1, ?2) ON CONFLICT DO NOTHING
        """

    let db: Database
    let receivedAtMs: Int64
    let forgotten: StoreSharedWrites.ForgottenCustomers?
    /// The rowid floor an erasure left (the first new row goes above it), or `nil`.
    var floor: Int64?

    init(db: Database, receivedAtMs: Int64) throws {
        self.db = db
        self.receivedAtMs = receivedAtMs
        forgotten = try StoreSharedWrites.suppressionList(db)
        floor = try SubscriptionRowidFloor.pending(db)
    }

    mutating func ingest(_ body: Data, origin: String, line: Int?) throws -> SubscriptionIngestOutcome {
        let bytes = [UInt8](body)
        let event: SubscriptionEvent
        switch WebhookExtraction.extract(bytes) {
        case .failure(let problems):
            let entry = bytes.withUnsafeBytes {
                QuarantineEntry(
                    quarantinedAt: receivedAtMs, reasons: problems.reasons, bytes: $0, origin: origin, line: line)
            }
            switch try StoreSharedWrites.quarantine(entry, db) {
            case .stored, .alreadyQuarantined: return .quarantined(reasons: entry.reasons)
            case .suppressed: return .suppressed
            }
        case .success(let extracted): event = extracted
        }
        // The rule erasure follows: a customer key, or any whole JSON string of the body (a transfer's
        // transferred_from, an attribute). Only when someone was forgotten: one hash per string.
        if let forgotten, let root = try? WebhookJSON.parse(bytes),
            SubscriptionErasure.strings(in: root).contains(where: forgotten.isForgotten)
        {
            try StoreSharedWrites.countSuppressed(1, at: receivedAtMs, db)
            return .suppressed
        }
        let insert = try db.cachedStatement(Self.insertSQL)
        defer { insert.reset() }
        insert.bind(floor.map { $0 + 1 }, at: 1)
        insert.bind(event.id, at: 2)
        insert.bind(event.type, at: 3)
        insert.bind(event.environment, at: 4)
        insert.bind(event.eventTimestampMs, at: 5)
        insert.bind(event.appUserID, at: 6)
        insert.bind(event.originalAppUserID, at: 7)
        insert.bind(event.productID, at: 8)
        insert.bind(event.periodType, at: 9)
        insert.bind(event.purchasedAtMs, at: 10)
        insert.bind(event.expirationAtMs, at: 11)
        insert.bind(event.store, at: 12)
        insert.bind(event.transactionID, at: 13)
        insert.bind(event.originalTransactionID, at: 14)
        insert.bind(event.isTrialConversion.map { Int64($0 ? 1 : 0) }, at: 15)
        insert.bind(event.presentedOfferingID, at: 16)
        insert.bind(event.priceMicros, at: 17)
        insert.bind(event.proceedsMicros, at: 18)
        insert.bind(event.currency, at: 19)
        insert.bind(receivedAtMs, at: 20)
        insert.bind(body, at: 21)
        try insert.run()
        guard db.changes == 1 else { return .duplicate }
        if floor != nil {
            try SubscriptionRowidFloor.passed(db)
            floor = nil
        }
        let rowid = db.lastInsertRowID
        let key = try db.cachedStatement(Self.insertKeySQL)
        defer { key.reset() }
        for customer in event.customerKeys {
            key.reset()
            key.bind(customer, at: 1)
            key.bind(rowid, at: 2)
            try key.run()
        }
        return .stored
    }
}
