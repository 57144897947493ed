import PaywallSQLite

extension Schema {
    /// The offering comparison's building block: `report_presentations` gains the first impression's
    /// id (`impression_id`, 16 bytes, the tie-break after `impression_at`) and its `offering_id`
    /// (`offering`, `NULL` when that impression has none). The rollups are derived data: this
    /// migration rebuilds the table empty (with the keys, the nightly day partials, the dirty buckets
    /// and the event buckets) and resets the watermark; the next report run rebuilds them from the events.
    static let reportsOfferings = Migration("reports-offerings", sql: """
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
        DELETE FROM meta WHERE key IN ('reports.watermark_rowid', 'reports.newest_occurred_at', 'reports.partials_timezone');
        """)
}
