import Foundation
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallSubscriptions

/// Subscription events inserted with plain SQL into the tables the store keeps them in
/// (`subscription_events` and `subscription_customer_keys`, created by PaywallSubscriptions'
/// migration), for the revenue reports' tests.
enum SubscriptionFixture {
    /// Opens (creating) a store at `path` with the reports' and the subscription events' tables,
    /// by their own migrations, as the command line opens it.
    static func openStore(path: String) throws -> Connection {
        try Schema.open(path: path, registering: [ReportSchema.migrations, SubscriptionSchema.migrations])
    }

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

    /// Inserts events (a repeated id is ignored, as the store dedupes) with their customer keys.
    static func insert(_ events: [Event], into connection: Connection) throws {
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
