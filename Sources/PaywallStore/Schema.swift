import PaywallSQLite

/// The store's schema: an ordered list of migrations, applied on open, version kept in
/// `PRAGMA user_version`. Times are Unix milliseconds; ids are uppercase canonical UUID text.
///
/// To change the schema, append a ``Migration`` to ``migrations`` (never edit a shipped one).
/// A database created by a newer program (a higher version) is refused and left untouched.
public enum Schema {
    /// Every migration, oldest first; index `i` brings the schema to version `i + 1`.
    public static let migrations: [Migration] = [
        Migration("1-events-outbox-dead-letters-quarantine-drops-meta", sql: version1),
        // Append later migrations here (e.g. report indexes and rollup tables).
        reportsRollups,
        reportsRollupKeys,
        reportsDayPartials,
        reportsRollupSlim,
        outboxKeyedByEventRowid,
        quarantineOncePerPayload,
        eventsWithStableRowids,
        deadLetterBuckets,
        reportsOfferings,
    ]

    /// The migrator for ``migrations``.
    public static let migrator = Migrator(migrations)

    /// The newest schema version this program knows.
    public static var latestVersion: Int { migrations.count }

    /// Opens (creating with mode 0600 if needed) and migrates the store at `path`.
    ///
    /// - Throws: `StorageError`: `.schemaTooNew` (file untouched), `.corrupt`, `.readOnly`,
    ///   `.cannotOpen`, `.busy`, `.walUnavailable`.
    public static func open(path: String, options: OpenOptions = .default) throws -> Connection {
        try migrator.open(path: path, options: options)
    }

    static let version1 = """
        CREATE TABLE events (
          id TEXT PRIMARY KEY NOT NULL,
          name TEXT NOT NULL, occurred_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL,
          user_id TEXT NOT NULL, session_id TEXT, catalog_version INTEGER NOT NULL,
          pw_id TEXT NOT NULL, source TEXT NOT NULL, offering_id TEXT, placement_id TEXT,
          product TEXT, result TEXT, via TEXT, open_s REAL) STRICT;
        CREATE TABLE outbox (
          event_id TEXT PRIMARY KEY NOT NULL REFERENCES events(id), occurred_at INTEGER NOT NULL,
          state TEXT NOT NULL CHECK (state IN ('pending','delivered','dead')),
          attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL DEFAULT 0,
          delivered_at INTEGER) STRICT;
        CREATE INDEX outbox_state_next_attempt ON outbox (state, next_attempt_at);
        CREATE TABLE dead_letters (
          event_id TEXT NOT NULL, status INTEGER NOT NULL, reason TEXT NOT NULL, dead_at INTEGER NOT NULL,
          requeued_at INTEGER) STRICT;
        CREATE INDEX dead_letters_event ON dead_letters (event_id);
        CREATE TABLE quarantine (
          seq INTEGER PRIMARY KEY, quarantined_at INTEGER NOT NULL, reasons TEXT NOT NULL, payload TEXT NOT NULL,
          origin TEXT, line INTEGER) STRICT;
        CREATE TABLE drops (
          dropped_at INTEGER NOT NULL, count INTEGER NOT NULL) STRICT;
        CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) STRICT;
        """
}

extension Schema {
    /// Migration 7: an index on the quarantined payload, so a bad line imported again (the same
    /// file twice, or the same line in two files) is quarantined once — a re-import adds nothing.
    /// Rows already stored twice by older versions are left as they were.
    static let quarantineOncePerPayload = Migration("quarantine-once-per-payload", sql: """
        CREATE INDEX quarantine_by_payload ON quarantine (payload);
        """)
}

extension Schema {
    /// Migration 8: `events` gets an explicit `seq INTEGER PRIMARY KEY` (an alias of its rowid), and
    /// `id` becomes a UNIQUE column. The outbox, the deliveries and the reports' watermark all key
    /// on the events rowid; SQLite only promises that a rowid survives `VACUUM` when it is declared
    /// as an INTEGER PRIMARY KEY, so this makes them safe from a `VACUUM` run by hand. The existing
    /// rows keep their rowids (copied in rowid order); the columns keep their order, `seq` last.
    static let eventsWithStableRowids = Migration("events-with-stable-rowids", sql: """
        CREATE TABLE events_v8 (
          id TEXT NOT NULL UNIQUE,
          name TEXT NOT NULL, occurred_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL,
          user_id TEXT NOT NULL, session_id TEXT, catalog_version INTEGER NOT NULL,
          pw_id TEXT NOT NULL, source TEXT NOT NULL, offering_id TEXT, placement_id TEXT,
          product TEXT, result TEXT, via TEXT, open_s REAL,
          seq INTEGER PRIMARY KEY) STRICT;
        INSERT INTO events_v8 (seq, id, name, occurred_at, recorded_at, user_id, session_id, catalog_version, pw_id,
                               source, offering_id, placement_id, product, result, via, open_s)
          SELECT rowid, id, name, occurred_at, recorded_at, user_id, session_id, catalog_version, pw_id,
                 source, offering_id, placement_id, product, result, via, open_s
          FROM events ORDER BY rowid;
        DROP TABLE events;
        ALTER TABLE events_v8 RENAME TO events;
        """)
}
