import PaywallSQLite

/// How many subscription events a store holds (what `stats` prints).
public struct SubscriptionStats: Sendable, Equatable {
    /// Stored subscription events.
    public var events: Int64
    /// Of those, sandbox purchases and `TEST` events (counted only in data quality).
    public var sandbox: Int64
    /// Distinct customer keys.
    public var customerKeys: Int64

    /// Reads the counts, or `nil` when the store has no subscription tables (a file an older program
    /// wrote, opened read-only, so never migrated).
    public static func read(_ connection: Connection) throws -> SubscriptionStats? {
        try connection.withDatabase { db in
            guard
                try db.int64(
                    "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'subscription_events'") == 1
            else { return nil }
            return SubscriptionStats(
                events: try db.int64("SELECT count(*) FROM subscription_events") ?? 0,
                sandbox: try db.int64(
                    "SELECT count(*) FROM subscription_events WHERE environment = 'SANDBOX' OR type = 'TEST'") ?? 0,
                customerKeys: try db.int64("SELECT count(DISTINCT customer_key) FROM subscription_customer_keys") ?? 0)
        }
    }
}
