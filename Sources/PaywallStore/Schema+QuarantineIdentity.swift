import PaywallSQLite

extension Schema {
    /// Store migration: a quarantined input is identified by its exact bytes. `line_sha256` is the
    /// SHA-256 of the whole input (unique: an exact repeat is "already quarantined", a line that
    /// differs in any byte is kept apart); `payload_raw` keeps the payload's bytes when they are not
    /// valid UTF-8 (`payload` then shows each invalid byte as `\xHH`). Rows stored before have no
    /// digest; an exact repeat of one of them is still recognised by its payload text (through a
    /// partial index over those rows only).
    static let quarantineIdentityByBytes = Migration(
        "quarantine-identity-by-bytes",
        sql: """
            ALTER TABLE quarantine ADD COLUMN line_sha256 BLOB;
            ALTER TABLE quarantine ADD COLUMN payload_raw BLOB;
            CREATE UNIQUE INDEX quarantine_by_line_sha256 ON quarantine (line_sha256);
            DROP INDEX quarantine_by_payload;
            CREATE INDEX quarantine_legacy_payload ON quarantine (payload) WHERE line_sha256 IS NULL;
            """)
}
