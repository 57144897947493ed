import PaywallSQLite

/// Writes databases the way programs did before migrations were recorded by identifier: the first
/// N legacy migrations in one list, one transaction each, the count kept in `PRAGMA user_version`,
/// no `schema_migrations` table — real files of the old versions, for upgrade tests.
public enum LegacyStore {
    /// SQL that count-based programs ran with a migration and its identifier-keyed version no
    /// longer runs: legacy migration 2 indexed the old outbox, which legacy migration 6 dropped.
    static let historicAdditions = [
        "reports/rollups": "CREATE INDEX report_outbox_by_time ON outbox (occurred_at, state)"
    ]

    /// Creates the database at `path` at legacy `version` (1 to `migrator.legacy.count`), from the
    /// registered migrations of `migrator` (which must register every legacy owner).
    ///
    /// ```swift
    /// let old = try LegacyStore.create(at: path, version: 5, from: ReportSchema.migrator)
    /// ```
    public static func create(at path: String, version: Int, from migrator: Migrator) throws -> Connection {
        let steps = Array(migrator.steps.prefix(version))
        precondition(
            version <= migrator.legacy.count && steps.map(\.identifier) == Array(migrator.legacy.prefix(version)),
            "the migrator does not register the first \(version) legacy migrations")
        let connection = try Connection(path: path)
        for (index, step) in steps.enumerated() {
            try connection.transaction(.immediate) { db in
                try step.migration.apply(db)
                if let sql = historicAdditions[step.identifier] { try db.execute(sql) }
                try db.execute("PRAGMA user_version = \(index + 1)")
            }
        }
        return connection
    }
}
