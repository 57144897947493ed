import PaywallSQLite
import PaywallStore

/// The reports' own tables and `meta` keys, created and reset by their own migrations (recorded as
/// `reports/…`), applied after the store's (``PaywallStore/Schema``) in the same file.
///
/// The rollups are derived data: a migration that changes their layout drops them and forgets the
/// meta keys below, and the next report run rebuilds them from the events.
///
/// ```swift
/// let connection = try ReportSchema.open(path: dbPath)   // the store's migrations, then the reports'
/// // or, with other modules: Schema.open(path: dbPath, registering: [ReportSchema.migrations, …])
/// ```
public enum ReportSchema {
    /// The reports' migrations, oldest first. Append new ones at the end.
    public static let migrations = MigrationGroup(
        owner: "reports",
        [
            rollups, rollupKeys, dayPartials, rollupSlim, exactProducts, offerings, newestAtArrival,
            presentationContext, subscriptionState,
        ])

    /// The tables the reports' migrations create.
    public static let tables =
        [
            "report_presentations", "report_event_buckets", "report_customers",
            "report_placements", "report_day_partials", "report_dirty_buckets",
        ] + subscriptionStateTables

    /// Meta key of the last events rowid folded into the rollups (``Rollup``).
    static let watermarkKey = "reports.watermark_rowid"
    /// Meta key of the newest `occurred_at` among the stored events (``Rollup``; the SQL reports read it too).
    static let newestKey = "reports.newest_occurred_at"
    /// Meta key of the time zone the nightly day partials are cut in (``NightlyPartials``).
    static let partialsTimezoneKey = "reports.partials_timezone"
    /// Meta key counting the erasures that changed the rollups (``ReportErasure``): a rollup refresh
    /// that started before one gives up instead of merging what it read before the erasure.
    static let erasureGenerationKey = "reports.erasure_generation"
    /// Meta key of the nightly run's lease (``ReportLease``).
    static let leaseKey = "reports.lease"

    /// The store's migrator with the reports' migrations registered.
    public static let migrator = Schema.migrator(registering: [migrations])

    /// Opens and migrates the store at `path` with the reports' tables (``PaywallStore/Schema/open(path:options:registering:)``).
    ///
    /// - Throws: `StorageError`, as `Schema.open`.
    public static func open(path: String, options: OpenOptions = .default) throws -> Connection {
        try migrator.open(path: path, options: options)
    }

    /// The value under `key` in the store's `meta` table, if any.
    static func metaValue(_ key: String, in db: Database) throws -> String? {
        try db.scalar("SELECT value FROM meta WHERE key = ?1", [.text(key)])?.string
    }

    /// Sets `key` in the store's `meta` table to `value`.
    static func setMeta(_ key: String, to value: String, in db: Database) throws {
        try db.run(
            "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [.text(key), .text(value)])
    }

    /// Adds one to the count under `key` in the store's `meta` table (absent: 0).
    static func incrementMeta(_ key: String, in db: Database) throws {
        try db.run(
            """
            INSERT INTO meta (key, value) VALUES (?1, '1')
            ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)
            """, [.text(key)])
    }

    /// Deletes `keys` from the store's `meta` table (a migration resetting derived data).
    static func forget(_ keys: [String], in db: Database) throws {
        for key in keys {
            try db.run("DELETE FROM meta WHERE key = ?1", [.text(key)])
        }
    }
}
