import PaywallSQLite
import PaywallStore

/// The subscription events' tables, created by this module's migrations (recorded as
/// `subscriptions/…`) after the store's in the same file. Register them where a program opens the
/// store (the command-line tool registers every module in one list):
///
/// ```swift
/// let connection = try Schema.open(path: path, registering: [SubscriptionSchema.migrations])
/// ```
///
/// - `subscription_events`: one row per stored RevenueCat event (deduplicated by `id`, the webhook's
///   `event.id`), with the columns the reports read, extracted from `raw_body` (the whole body as
///   received, kept because RevenueCat adds fields and types). A rowid table: a later insert gets
///   a larger rowid, also after an erasure removed the newest rows (``SubscriptionRowidFloor``).
///   Money is in micro-dollars (`price_micros`, `proceeds_micros`), `NULL` when the price is absent.
/// - `subscription_customer_keys`: the event's `app_user_id`, `original_app_user_id` and every
///   alias, one row each, so anonymous ids later identified still find their events.
public enum SubscriptionSchema {
    /// The module's migrations, oldest first. Append new ones at the end; never edit a shipped one.
    public static let migrations = MigrationGroup(owner: "subscriptions", [events])

    /// The tables the migrations create.
    public static let tables = ["subscription_events", "subscription_customer_keys"]

    /// Opens (creating with mode 0600 if needed) and migrates the store at `path` with these tables.
    ///
    /// - Throws: `StorageError`, as `Schema.open`.
    public static func open(path: String, options: OpenOptions = .default) throws -> Connection {
        try Schema.open(path: path, options: options, registering: [migrations])
    }

    /// `subscriptions/events`: the two tables and their indexes.
    static let events = Migration(
        "events",
        sql: """
            CREATE TABLE subscription_events (
              id TEXT NOT NULL UNIQUE,
              type TEXT,
              environment TEXT,
              event_timestamp_ms INTEGER,
              app_user_id TEXT,
              original_app_user_id TEXT,
              product_id TEXT,
              period_type TEXT,
              purchased_at_ms INTEGER,
              expiration_at_ms INTEGER,
              store TEXT,
              transaction_id TEXT,
              original_transaction_id TEXT,
              is_trial_conversion INTEGER,
              presented_offering_id TEXT,
              price_micros INTEGER,
              proceeds_micros INTEGER,
              currency TEXT,
              received_at_ms INTEGER NOT NULL,
              raw_body BLOB NOT NULL
            );
            CREATE INDEX subscription_events_by_transaction ON subscription_events(original_transaction_id);
            CREATE TABLE subscription_customer_keys (
              customer_key TEXT NOT NULL,
              event_rowid INTEGER NOT NULL,
              PRIMARY KEY (customer_key, event_rowid)
            ) WITHOUT ROWID;
            CREATE INDEX subscription_customer_keys_by_event ON subscription_customer_keys(event_rowid);
            """)
}

/// Keeps `subscription_events` rowids from being reused after ``SubscriptionErasure`` removed the
/// newest rows (SQLite gives a new row the largest rowid plus one): a report that folded events up
/// to a rowid must never see a later event under a rowid it already passed. The erasure records
/// the largest rowid it removed in `meta`; the next ingest starts above it, and the key goes once a
/// larger rowid is stored.
enum SubscriptionRowidFloor {
    /// `meta` key: the largest rowid an erasure removed while it was the newest.
    static let key = "subscriptions.rowid_floor"

    /// The floor to start above, or `nil` (the key is removed once stored rowids passed it).
    static func pending(_ db: Database) throws -> Int64? {
        guard let floor = try db.int64("SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1", [.text(key)]) else {
            return nil
        }
        let top = try db.int64("SELECT coalesce(max(rowid), 0) FROM subscription_events") ?? 0
        guard top < floor else {
            try db.run("DELETE FROM meta WHERE key = ?1", [.text(key)])
            return nil
        }
        return floor
    }

    /// Forgets the floor once a row was stored above it.
    static func passed(_ db: Database) throws {
        try db.run("DELETE FROM meta WHERE key = ?1", [.text(key)])
    }

    /// Raises the floor to `largest`, inside the erasing transaction.
    static func raise(to largest: Int64, _ db: Database) throws {
        try db.run(
            """
            INSERT INTO meta (key, value) VALUES (?1, CAST(?2 AS TEXT))
            ON CONFLICT (key) DO UPDATE SET value = CAST(max(CAST(value AS INTEGER), ?2) AS TEXT)
            """, [.text(key), .integer(largest)])
    }
}
