import PaywallSQLite

extension Schema {
    /// `store/event-context`: the optional envelope fields of catalog version 2 (where an event came
    /// from: `app_version`, `build`, `platform`, `os_version`, `sdk_version`, `locale`) as nullable
    /// columns of `events`. `ADD COLUMN` appends them after `seq` and rewrites no row, so a large
    /// store migrates at once; existing rows (catalog version 1 events) hold `NULL` in them.
    static let eventContext = Migration(
        "event-context",
        sql: """
            ALTER TABLE events ADD COLUMN app_version TEXT;
            ALTER TABLE events ADD COLUMN build TEXT;
            ALTER TABLE events ADD COLUMN platform TEXT;
            ALTER TABLE events ADD COLUMN os_version TEXT;
            ALTER TABLE events ADD COLUMN sdk_version TEXT;
            ALTER TABLE events ADD COLUMN locale TEXT;
            """)
}
