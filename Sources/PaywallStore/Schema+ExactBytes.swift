import PaywallSQLite

extension Schema {
    /// Migration: text is identified by its exact bytes, never by canonical equivalence.
    ///
    /// The quarantine: `line_sha256` is the SHA-256 of a quarantined input's whole bytes (unique: an
    /// exact repeat is "already quarantined", a line that differs in any byte is kept apart);
    /// `payload_raw` keeps the payload's bytes when they are not valid UTF-8 (`payload` then shows
    /// each invalid byte as `\xHH`). Rows stored before have no digest; an exact repeat of one of
    /// them is still recognised by its payload text (through a partial index over those rows only).
    ///
    /// The report rollups: earlier versions interned close products as Swift `String`s, which
    /// merged canonically equivalent products (`pro\u{E9}` and `proe\u{301}`) into one spelling. When
    /// any stored product holds a byte outside printable ASCII (the only way two products can be
    /// canonically equivalent), the rollups, their keys and the nightly partials are emptied and the
    /// watermark reset, so the next report run rebuilds them from the events; otherwise they stay.
    static let exactBytesIdentity = Migration("exact-bytes-identity", sql: """
        ALTER TABLE quarantine ADD COLUMN line_sha256 BLOB;
        ALTER TABLE quarantine ADD COLUMN payload_raw BLOB;
        CREATE UNIQUE INDEX quarantine_by_line_sha256 ON quarantine (line_sha256);
        DROP INDEX quarantine_by_payload;
        CREATE INDEX quarantine_legacy_payload ON quarantine (payload) WHERE line_sha256 IS NULL;
        CREATE TEMP TABLE exact_bytes_rebuild AS
          SELECT EXISTS (SELECT 1 FROM events WHERE product GLOB '*[^ -~]*') AS needed;
        DELETE FROM report_presentations WHERE (SELECT needed FROM temp.exact_bytes_rebuild);
        DELETE FROM report_customers WHERE (SELECT needed FROM temp.exact_bytes_rebuild);
        DELETE FROM report_placements WHERE (SELECT needed FROM temp.exact_bytes_rebuild);
        DELETE FROM report_event_buckets WHERE (SELECT needed FROM temp.exact_bytes_rebuild);
        DELETE FROM report_day_partials WHERE (SELECT needed FROM temp.exact_bytes_rebuild);
        DELETE FROM report_dirty_buckets WHERE (SELECT needed FROM temp.exact_bytes_rebuild);
        DELETE FROM meta WHERE key IN ('reports.watermark_rowid', 'reports.newest_occurred_at', 'reports.partials_timezone')
          AND (SELECT needed FROM temp.exact_bytes_rebuild);
        DROP TABLE temp.exact_bytes_rebuild;
        """)
}
