import PaywallSQLite

extension Schema {
    /// The name of the unique index on `events.id` (``eventsIDIndex``).
    public static let eventsIDIndexName = "events_by_id"

    /// The statement that creates the unique index on `events.id` (``eventsIDIndexName``): the
    /// migration's, and the one a first import into an empty store runs once its rows are in.
    static let createEventsIDIndex = "CREATE UNIQUE INDEX events_by_id ON events (id)"

    /// The statement that drops it (a first import into an empty store, until it runs
    /// ``createEventsIDIndex``).
    static let dropEventsIDIndex = "DROP INDEX events_by_id"

    /// `store/events-id-index`: `events.id` stays unique, but through a named index
    /// (``eventsIDIndexName``) instead of a `UNIQUE` constraint in the table's definition, so a first
    /// import into an empty store can build the index once its rows are in (by sorting: 1.6–1.8× the
    /// speed of inserting random ids into it one by one) instead of one random leaf per event; SQLite
    /// never drops the index of a constraint. The rows are copied in rowid order (rowids, columns and
    /// their order kept), the index built after them; a large store takes this copy once. Triggers of
    /// other tables name `events` (the dead letters' buckets): the rename runs with SQLite's legacy
    /// rename behaviour, which leaves their text alone instead of checking it against the schema of
    /// that moment, when `events` is gone (their text names the table that `events` is again after).
    static let eventsIDIndex = Migration("events-id-index") { db in
        try db.execute("PRAGMA legacy_alter_table = ON")
        defer { try? db.execute("PRAGMA legacy_alter_table = OFF") }
        try db.execute(eventsIDIndexSQL)
        try db.execute(createEventsIDIndex)
    }

    /// The statements of ``eventsIDIndex`` before the index is created.
    static let eventsIDIndexSQL = """
        CREATE TABLE events_without_constraint (
          id TEXT NOT NULL,
          name TEXT NOT NULL, occurred_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL,
          user_id TEXT NOT NULL, session_id TEXT, catalog_version INTEGER NOT NULL,
          pw_id TEXT NOT NULL, source TEXT NOT NULL, offering_id TEXT, placement_id TEXT,
          product TEXT, result TEXT, via TEXT, open_s REAL,
          seq INTEGER PRIMARY KEY, app_version TEXT, build TEXT, platform TEXT, os_version TEXT,
          sdk_version TEXT, locale TEXT) STRICT;
        INSERT INTO events_without_constraint (
            id, name, occurred_at, recorded_at, user_id, session_id, catalog_version, pw_id, source,
            offering_id, placement_id, product, result, via, open_s, seq, app_version, build, platform,
            os_version, sdk_version, locale)
          SELECT id, name, occurred_at, recorded_at, user_id, session_id, catalog_version, pw_id, source,
                 offering_id, placement_id, product, result, via, open_s, seq, app_version, build, platform,
                 os_version, sdk_version, locale
          FROM events ORDER BY seq;
        DROP TABLE events;
        ALTER TABLE events_without_constraint RENAME TO events;
        """
}
