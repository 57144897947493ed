import PaywallSQLite

/// The store's schema: the migrations the store owns (``storeMigrations``, recorded as `store/…`),
/// applied on open with those of any other module that keeps tables in the same file. Times are Unix
/// milliseconds; ids are uppercase canonical UUID text.
///
/// To change the store's schema, append a ``Migration`` to ``storeMigrations`` (never edit a shipped
/// one). Another module declares its own ``MigrationGroup`` and is registered where the program opens
/// the store:
///
/// ```swift
/// let connection = try Schema.open(path: path, registering: [ReportSchema.migrations, Collector.migrations])
/// ```
///
/// A database created by a newer program is refused and left untouched (see ``Migrator``).
public enum Schema {
    /// The store's migrations, oldest first.
    public static let storeMigrations = MigrationGroup(
        owner: "store",
        [
            Migration("events-outbox-dead-letters-quarantine-drops-meta", sql: version1),
            outboxKeyedByEventRowid,
            quarantineOncePerPayload,
            eventsWithStableRowids,
            deadLetterBuckets,
            storeApplicationID,
            quarantineIdentityByBytes,
            deliveriesByDevice,
            deliveryBucketsByDevice,
            privacy,
            uploadCursorAndPauses,
            openPresentations,
            eventContext,
            eventsIDIndex,
            // Append later store migrations here.
        ])

    /// The identifiers of the nine migrations that programs counting migrations in `user_version`
    /// applied, in their order (version N = the first N). Frozen history: never edit or extend it.
    public static let legacyIdentifiers = [
        "store/events-outbox-dead-letters-quarantine-drops-meta",
        "reports/rollups", "reports/rollup-keys", "reports/day-partials", "reports/rollup-slim",
        "store/outbox-keyed-by-event-rowid", "store/quarantine-once-per-payload", "store/events-with-stable-rowids",
        "store/dead-letter-buckets",
    ]

    /// The tables the store's migrations create (`report_delivery_buckets` and `report_dead_buckets`
    /// are the store's: triggers on its tables keep them exact).
    public static let tables = [
        "events", "outbox", "deliveries", "dead_letters", "quarantine", "drops", "meta",
        "report_delivery_buckets", "report_dead_buckets",
        "suppressions", "suppressed_events", "upload_cursor", "delivery_pauses",
        "retention_deletions", "open_presentations",
    ]

    /// The migrator for the store's migrations followed by `groups` (modules that build on the store);
    /// it refuses another program's SQLite file (``identity``).
    public static func migrator(registering groups: [MigrationGroup] = []) -> Migrator {
        Migrator([storeMigrations] + groups, legacy: legacyIdentifiers, identity: identity)
    }

    /// The migrator for the store's migrations alone.
    public static let migrator = migrator()

    /// The `user_version` of a store holding only the store's migrations.
    public static var latestVersion: Int { migrator.latestVersion }

    /// Opens (creating with mode 0600 if needed) and migrates the store at `path`, with the
    /// migrations of `groups` after the store's.
    ///
    /// - Throws: `StorageError`: `.foreignDatabase` (another program's SQLite file, untouched),
    ///   `.schemaTooNew` (file untouched), `.corrupt`, `.readOnly`,
    ///   `.cannotOpen`, `.busy`, `.walUnavailable`.
    public static func open(
        path: String, options: OpenOptions = .default,
        registering groups: [MigrationGroup] = []
    ) throws -> Connection {
        try (groups.isEmpty ? migrator : migrator(registering: groups)).open(path: path, options: options)
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
    static let quarantineOncePerPayload = Migration(
        "quarantine-once-per-payload",
        sql: """
            CREATE INDEX quarantine_by_payload ON quarantine (payload);
            """)
}

extension Schema {
    /// Migration 8: `events` gets an explicit `seq INTEGER PRIMARY KEY` (an alias of its rowid), and
    /// `id` becomes a UNIQUE column. The outbox, the deliveries and the reports' watermark all key
    /// on the events rowid; SQLite only promises that a rowid survives `VACUUM` when it is declared
    /// as an INTEGER PRIMARY KEY, so this makes them safe from a `VACUUM` run by hand. The existing
    /// rows keep their rowids (copied in rowid order); the columns keep their order, `seq` last.
    static let eventsWithStableRowids = Migration(
        "events-with-stable-rowids",
        sql: """
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
