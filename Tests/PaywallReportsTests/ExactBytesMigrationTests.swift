import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// Upgrading a store written before text was identified by its exact bytes: the quarantine keeps
/// recognising exact repeats of its old rows, and rollups that may hold canonically merged products
/// are rebuilt (only then).
struct ExactBytesMigrationTests {
    let directory = TemporaryDirectory()

    /// A real file of the last count-based version (every legacy migration, none of this program's newer ones).
    func legacyStore(_ name: String) throws -> (path: String, connection: Connection) {
        let path = directory.path(name)
        let connection = try LegacyStore.create(
            at: path, version: Schema.legacyIdentifiers.count, from: ReportSchema.migrator)
        return (path, connection)
    }

    @Test func aStoreFromBeforeTheDigestsStillRecognisesAnExactRepeat() throws {
        // Given an old store holding a quarantined line
        let (path, old) = try legacyStore("old.sqlite")
        _ = try old.run(
            "INSERT INTO quarantine (quarantined_at, reasons, payload, origin, line) VALUES (1, 'r', ?1, 'a.ndjson', 3)",
            [.text(#"{"x":1}"#)])
        // When this program opens it and imports the same line (with CRLF) and a new one
        let store = try EventStore(path: path, now: .constant(1_764_400_000_000))
        let file = directory.path("b.ndjson")
        try Data("{\"x\":1}\r\n{\"x\":2}\n".utf8).write(to: URL(fileURLWithPath: file))
        let result = try Importer(store: store).importFiles([file])
        // Then the repeat is already quarantined and only the new line is added, with its digest
        #expect(result.quarantined == 2)
        #expect(result.alreadyQuarantined == 1)
        #expect(try store.connection.scalar("SELECT count(*) FROM quarantine")?.int64 == 2)
        #expect(try store.connection.scalar("SELECT count(*) FROM quarantine WHERE line_sha256 IS NULL")?.int64 == 1)
        #expect(
            try store.connection.scalar("SELECT hex(line_sha256) FROM quarantine WHERE line_sha256 IS NOT NULL")?.string
                == SHA256.hex(SHA256.digest(#"{"x":2}"#.utf8)).uppercased())
    }

    @Test(arguments: [false, true])
    func rollupsAreRebuiltOnlyWhenAProductCouldHaveBeenMergedCanonically(nonASCII: Bool) throws {
        // Given an old store with a purchase and a report watermark over it
        let (path, old) = try legacyStore("rollups-\(nonASCII).sqlite")
        _ = try old.run(
            """
            INSERT INTO events (id, name, occurred_at, recorded_at, user_id, catalog_version, pw_id, source, product)
            VALUES ('A', 'paywall_closed', 1, 1, 'u', 1, 'P', 's', ?1)
            """, [.text(nonASCII ? "pro\u{E9}" : "pro")])
        _ = try old.run("INSERT INTO meta (key, value) VALUES ('reports.watermark_rowid', '1')")
        _ = try old.run("INSERT INTO report_placements (key, placement) VALUES (1, 's')")
        // When this program opens it with the reports' migrations up to this one (a later migration,
        // reports/offerings, empties the rollups of every store anyway)
        let group = ReportSchema.migrations
        let upToExact = Array(group.migrations.prefix { $0.name != "offerings" })
        #expect(upToExact.last?.name == "exact-products")
        let connection = try Schema.migrator(registering: [MigrationGroup(owner: group.owner, upToExact)]).open(
            path: path)
        // Then the rollups are emptied and the watermark forgotten only when a product holds non-ASCII text
        let watermark = try connection.scalar("SELECT value FROM meta WHERE key = 'reports.watermark_rowid'")
        #expect((watermark == nil) == nonASCII)
        #expect(try connection.scalar("SELECT count(*) FROM report_placements")?.int64 == (nonASCII ? 0 : 1))
    }
}
