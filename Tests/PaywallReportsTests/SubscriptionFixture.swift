import Foundation
import PaywallSQLite

/// Subscription events inserted with plain SQL into the tables the store keeps them in
/// (`subscription_events` and `subscription_customer_keys`), for the revenue reports' tests.
enum SubscriptionFixture {
    /// The subscription tables as the store creates them; created here only where the store's own
    /// migration has not (the statement is a no-op on a store that has them).
    static let tablesSQL = """
        CREATE TABLE IF NOT EXISTS subscription_events (
          id TEXT NOT NULL UNIQUE, type TEXT, environment TEXT, event_timestamp_ms INTEGER,
          app_user_id TEXT, original_app_user_id TEXT, product_id TEXT, period_type TEXT,
          purchased_at_ms INTEGER, expiration_at_ms INTEGER, store TEXT, transaction_id TEXT,
          original_transaction_id TEXT, is_trial_conversion INTEGER, presented_offering_id TEXT,
          price_micros INTEGER, proceeds_micros INTEGER, currency TEXT,
          received_at_ms INTEGER NOT NULL, raw_body BLOB NOT NULL);
        CREATE INDEX IF NOT EXISTS subscription_events_by_transaction ON subscription_events(original_transaction_id);
        CREATE TABLE IF NOT EXISTS subscription_customer_keys (
          customer_key TEXT NOT NULL, event_rowid INTEGER NOT NULL,
          PRIMARY KEY (customer_key, event_rowid)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS subscription_customer_keys_by_event ON subscription_customer_keys(event_rowid);
        """

    /// One stored subscription event (the columns the reports read).
    struct Event {
        var id: String
        var type: String
        var transaction: String?
        var at: Int64?
        var user: String
        var originalUser: String? = nil
        var aliases: [String] = []
        var environment: String? = "PRODUCTION"
        var period: String = "NORMAL"
        var purchasedAt: Int64? = nil
        var expirationAt: Int64? = nil
        var trialConversion: Bool? = nil
        var price: Int64? = nil
        var proceeds: Int64? = nil
    }

    static func createTables(_ connection: Connection) throws {
        try connection.transaction { db in try db.execute(tablesSQL) }
    }

    /// Inserts events (a repeated id is ignored, as the store dedupes) with their customer keys.
    static func insert(_ events: [Event], into connection: Connection) throws {
        try createTables(connection)
        try connection.transaction { db in
            for e in events {
                try db.run(
                    """
                    INSERT OR IGNORE INTO subscription_events (id, type, environment, event_timestamp_ms, app_user_id,
                      original_app_user_id, product_id, period_type, purchased_at_ms, expiration_at_ms, store,
                      transaction_id, original_transaction_id, is_trial_conversion, presented_offering_id, price_micros,
                      proceeds_micros, currency, received_at_ms, raw_body)
                    VALUES (?, ?, ?, ?, ?, ?, 'pro', ?, ?, ?, 'APP_STORE', ?, ?, ?, NULL, ?, ?, 'USD', ?, x'7b7d')
                    """,
                    [
                        .text(e.id), .text(e.type), e.environment.map { .text($0) } ?? .null,
                        e.at.map { .integer($0) } ?? .null, .text(e.user), e.originalUser.map { .text($0) } ?? .null,
                        .text(e.period), e.purchasedAt.map { .integer($0) } ?? .null,
                        e.expirationAt.map { .integer($0) } ?? .null, .text(e.id + "-t"),
                        e.transaction.map { .text($0) } ?? .null,
                        e.trialConversion.map { .integer($0 ? 1 : 0) } ?? .null,
                        e.price.map { .integer($0) } ?? .null, e.proceeds.map { .integer($0) } ?? .null,
                        .integer(e.at ?? 0),
                    ])
                guard db.changes == 1 else { continue }
                let rowid = db.lastInsertRowID
                for key in Set([e.user] + (e.originalUser.map { [$0] } ?? []) + e.aliases) {
                    try db.run(
                        "INSERT INTO subscription_customer_keys (customer_key, event_rowid) VALUES (?, ?)",
                        [.text(key), .integer(rowid)])
                }
            }
        }
    }
}
