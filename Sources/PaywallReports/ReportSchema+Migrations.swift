import PaywallSQLite

extension ReportSchema {
    /// The reports' rollups (read and maintained by ``Rollup``; see `reports/`):
    /// - `report_presentations`: one row per `pw_id` with the building blocks of funnels.md (first
    ///   event, placement, customer, impression, flags, close), folded incrementally from events;
    /// - `report_event_buckets`: event counts per 15-minute bucket of `occurred_at` (data quality).
    /// Both rollups start empty and are filled from the events on the first report run. (Count-based
    /// programs also indexed the old `outbox (occurred_at, state)` here; the store's outbox migration
    /// dropped that table with its index, and the reports no longer touch the store's tables.)
    static let rollups = Migration(
        "rollups",
        sql: """
            CREATE TABLE report_presentations (
              pw_id TEXT PRIMARY KEY NOT NULL,
              first_at INTEGER NOT NULL, first_id TEXT NOT NULL,
              placement TEXT NOT NULL, user_id TEXT NOT NULL,
              impression_at INTEGER,
              plan_selected INTEGER NOT NULL, purchase_started INTEGER NOT NULL,
              close_at INTEGER, close_id TEXT, close_result TEXT, close_via TEXT, close_open_s REAL,
              close_product TEXT) STRICT;
            CREATE INDEX report_presentations_by_time ON report_presentations (first_at);
            CREATE INDEX report_presentations_by_customer ON report_presentations (user_id, placement, impression_at)
              WHERE impression_at IS NOT NULL;
            CREATE INDEX report_presentations_purchases ON report_presentations (user_id, close_at)
              WHERE close_result = 'purchased';
            CREATE TABLE report_event_buckets (
              bucket INTEGER PRIMARY KEY NOT NULL, events INTEGER NOT NULL, impressions INTEGER NOT NULL) STRICT;
            """)

    /// Legacy migration 3: the rollups keyed for a fast scan. `report_presentations` becomes a `WITHOUT ROWID`
    /// table keyed by `pw_id` (time-ordered ids append) with one index on the first event's time and
    /// integer keys for its customer and placement (`report_customers`, `report_placements`), so the
    /// native report engine reads integers only. The rollups are derived data: this migration drops
    /// them and resets the watermark, and the next report run rebuilds them from the events.
    static let rollupKeys = Migration("rollup-keys") { db in
        try db.execute(rollupKeysSQL)
        try forget([watermarkKey, newestKey], in: db)
    }

    static let rollupKeysSQL = """
        DROP TABLE report_presentations;
        CREATE TABLE report_presentations (
          pw_id TEXT PRIMARY KEY NOT NULL,
          first_at INTEGER NOT NULL, first_id TEXT NOT NULL,
          placement TEXT NOT NULL, user_id TEXT NOT NULL,
          impression_at INTEGER,
          plan_selected INTEGER NOT NULL, purchase_started INTEGER NOT NULL,
          close_at INTEGER, close_id TEXT, close_result TEXT, close_via TEXT, close_open_s REAL,
          close_product TEXT,
          customer_key INTEGER, placement_key INTEGER) STRICT, WITHOUT ROWID;
        CREATE INDEX report_presentations_by_time ON report_presentations (first_at);
        CREATE TABLE report_customers (key INTEGER PRIMARY KEY, user_id TEXT NOT NULL UNIQUE) STRICT;
        CREATE TABLE report_placements (key INTEGER PRIMARY KEY, placement TEXT NOT NULL UNIQUE) STRICT;
        DELETE FROM report_event_buckets;
        """
}

extension ReportSchema {
    /// The nightly job's rollups per day and placement (``NightlyPartials``):
    /// `report_day_partials` holds one encoded day partial per report day of the zone named in
    /// `meta` (``partialsTimezoneKey``); `report_dirty_buckets` marks the 15-minute buckets the
    /// rollup refreshes touched since the nightly job last rescanned them. Derived data: a migration
    /// that rebuilds `report_presentations` must also empty both tables and that meta key.
    static let dayPartials = Migration("day-partials") { db in
        try db.execute(dayPartialsSQL)
        try forget([partialsTimezoneKey], in: db)
    }

    static let dayPartialsSQL = """
        CREATE TABLE report_day_partials (
          day_start INTEGER PRIMARY KEY NOT NULL, day_end INTEGER NOT NULL, partial BLOB NOT NULL) STRICT;
        CREATE TABLE IF NOT EXISTS report_dirty_buckets (bucket INTEGER PRIMARY KEY NOT NULL) STRICT, WITHOUT ROWID;
        """
}

extension ReportSchema {
    /// Legacy migration 5: a slimmer `report_presentations` that builds fast. Ids are 16-byte `BLOB`s (the
    /// UUID's bytes: canonical uppercase UUID text sorts like them, so ties by id compare the same), the
    /// placement and customer are only their `report_placements` / `report_customers` keys, and the
    /// close keeps its texts. `report_customers` loses its `UNIQUE` index on `user_id` (the rollup
    /// keeps names unique in memory, nothing looks a key up by name in SQL, and inserting 300k names
    /// into that index at random places was a large part of a first build). The rollups are derived
    /// data: this migration empties them (with the keys, the nightly day partials that use those keys
    /// and the dirty buckets) and resets the watermark; the next report run rebuilds them.
    static let rollupSlim = Migration("rollup-slim") { db in
        try db.execute(rollupSlimSQL)
        try forget([watermarkKey, newestKey, partialsTimezoneKey], in: db)
    }

    static let rollupSlimSQL = """
        DROP TABLE report_presentations;
        CREATE TABLE report_presentations (
          pw_id BLOB PRIMARY KEY NOT NULL,
          first_at INTEGER NOT NULL, first_id BLOB NOT NULL,
          placement_key INTEGER NOT NULL, customer_key INTEGER NOT NULL,
          impression_at INTEGER,
          plan_selected INTEGER NOT NULL, purchase_started INTEGER NOT NULL,
          close_at INTEGER, close_id BLOB, close_result TEXT, close_via TEXT, close_open_s REAL,
          close_product TEXT) STRICT, WITHOUT ROWID;
        CREATE INDEX report_presentations_by_time ON report_presentations (first_at);
        CREATE TABLE IF NOT EXISTS report_dirty_buckets (bucket INTEGER PRIMARY KEY NOT NULL) STRICT, WITHOUT ROWID;
        DELETE FROM report_dirty_buckets;
        DELETE FROM report_day_partials;
        DROP TABLE report_customers;
        CREATE TABLE report_customers (key INTEGER PRIMARY KEY, user_id TEXT NOT NULL) STRICT;
        DELETE FROM report_placements;
        DELETE FROM report_event_buckets;
        """

    /// The offering comparison's building block: `report_presentations` gains the first impression's
    /// id (`impression_id`, 16 bytes, the tie-break after `impression_at`) and its `offering_id`
    /// (`offering`, `NULL` when that impression has none). Derived data: the table is rebuilt empty
    /// (with the keys, the day partials, the dirty buckets and the event buckets) and the watermark
    /// forgotten; the next report run rebuilds them from the events.
    static let offerings = Migration("offerings") { db in
        try db.execute(offeringsSQL)
        try forget([watermarkKey, newestKey, partialsTimezoneKey], in: db)
    }

    static let offeringsSQL = """
        DROP TABLE report_presentations;
        CREATE TABLE report_presentations (
          pw_id BLOB PRIMARY KEY NOT NULL,
          first_at INTEGER NOT NULL, first_id BLOB NOT NULL,
          placement_key INTEGER NOT NULL, customer_key INTEGER NOT NULL,
          impression_at INTEGER,
          plan_selected INTEGER NOT NULL, purchase_started INTEGER NOT NULL,
          close_at INTEGER, close_id BLOB, close_result TEXT, close_via TEXT, close_open_s REAL,
          close_product TEXT,
          impression_id BLOB, offering TEXT) STRICT, WITHOUT ROWID;
        CREATE INDEX report_presentations_by_time ON report_presentations (first_at);
        DELETE FROM report_dirty_buckets;
        DELETE FROM report_day_partials;
        DELETE FROM report_customers;
        DELETE FROM report_placements;
        DELETE FROM report_event_buckets;
        """
}

extension ReportSchema {
    /// Where each presentation came from: `report_presentations` gains the `platform` and
    /// `app_version` of its first event (by `occurred_at`, then id; `NULL` when that event has none,
    /// as catalog version 1 events), which `segments.csv` and the `--platform` / `--app-version`
    /// filters read, so no report looks its first event up in `events`; and `last_at`, its newest
    /// event's time (each `occurred_at` capped at its `recorded_at`), the newest event of a filtered
    /// report (cohorts' `window_complete`). The rollup refresh fills them
    /// as it folds. Derived data: every rollup row, key, day partial and bucket is emptied and the
    /// watermark forgotten, so the next report run rebuilds them from the events with the context
    /// (a store upgraded from an older program takes one full fold on its next report run).
    static let presentationContext = Migration("presentation-context") { db in
        try db.execute(presentationContextSQL)
        try forget([watermarkKey, newestKey, partialsTimezoneKey], in: db)
    }

    static let presentationContextSQL = """
        ALTER TABLE report_presentations ADD COLUMN platform TEXT;
        ALTER TABLE report_presentations ADD COLUMN app_version TEXT;
        ALTER TABLE report_presentations ADD COLUMN last_at INTEGER;
        DELETE FROM report_presentations;
        DELETE FROM report_dirty_buckets;
        DELETE FROM report_day_partials;
        DELETE FROM report_customers;
        DELETE FROM report_placements;
        DELETE FROM report_event_buckets;
        """
}
