import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// The quarantine's identity by exact bytes, at the store: the raw bytes of a line that is not UTF-8
/// are kept, and a store upgraded from before the digests still recognises an exact repeat of one of
/// its rows.
struct QuarantineIdentityStoreTests {
    let directory = TemporaryDirectory()

    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = directory.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func invalidUTF8IsKeptAsItsBytesAndShownWithEscapes() throws {
        // Given a line holding a lone continuation byte, an overlong encoding and a truncated sequence
        let line: [UInt8] = Array(#"{"source":"a"#.utf8) + [0x80, 0xC0, 0xAF, 0x62, 0xE2, 0x82] + Array("\"}".utf8)
        let store = try EventStore(path: directory.path("s.sqlite"), now: .constant(1_764_400_000_000))
        // When it is imported
        let result = try Importer(store: store).importFiles([try file("bad.ndjson", line + [0x0A])])
        #expect(result.quarantined == 1)
        // Then the table keeps the exact bytes, the payload shows each invalid byte, and the digest is the line's
        let row = try #require(try store.connection.all("SELECT payload, payload_raw, line_sha256 FROM quarantine") {
            ($0.string(at: 0), $0.data(at: 1), $0.data(at: 2))
        }.first)
        #expect(row.0 == #"{"source":"a\x80\xC0\xAFb\xE2\x82"}"#)
        #expect(row.1.map { [UInt8]($0) } == line)
        #expect(row.2.map { [UInt8]($0) } == SHA256.digest(line))
    }

    @Test func aStoreFromBeforeTheDigestsStillRecognisesAnExactRepeat() throws {
        // Given a store at the schema just before the digests, holding a quarantined line
        let path = directory.path("old.sqlite")
        let index = try #require(Schema.migrations.firstIndex { $0.name == "exact-bytes-identity" })
        do {
            let old = try Migrator(Array(Schema.migrations[..<index])).open(path: path)
            _ = try old.run("INSERT INTO quarantine (quarantined_at, reasons, payload, origin, line) VALUES (1, 'r', ?1, 'a.ndjson', 3)",
                            [.text(#"{"x":1}"#)])
        }
        // When it is opened by this program and the same line, and a new one, are imported
        let store = try EventStore(path: path, now: .constant(1_764_400_000_000))
        let result = try Importer(store: store).importFiles([try file("b.ndjson", Array("{\"x\":1}\r\n{\"x\":2}\n".utf8))])
        // Then the repeat is already quarantined and only the new line is added, with its digest
        #expect(result.quarantined == 2)
        #expect(result.alreadyQuarantined == 1)
        #expect(try store.connection.scalar("SELECT count(*) FROM quarantine")?.int64 == 2)
        #expect(try store.connection.scalar("SELECT count(*) FROM quarantine WHERE line_sha256 IS NULL")?.int64 == 1)
    }

    @Test(arguments: [false, true])
    func rollupsAreRebuiltOnlyWhenAProductCouldHaveBeenMergedCanonically(nonASCII: Bool) throws {
        // Given a store just before the migration with an event and a report watermark
        let path = directory.path("rollups-\(nonASCII).sqlite")
        let index = try #require(Schema.migrations.firstIndex { $0.name == "exact-bytes-identity" })
        do {
            let old = try Migrator(Array(Schema.migrations[..<index])).open(path: path)
            _ = try old.run("""
                INSERT INTO events (id, name, occurred_at, recorded_at, user_id, catalog_version, pw_id, source, product)
                VALUES ('A', 'paywall_closed', 1, 1, 'u', 1, 'P', 's', ?1)
                """, [.text(nonASCII ? "pro\u{E9}" : "pro")])
            _ = try old.run("INSERT INTO meta (key, value) VALUES ('reports.watermark_rowid', '1')")
        }
        // When this program opens it
        let store = try EventStore(path: path, now: .constant(1_764_400_000_000))
        // Then the watermark is reset (rollups rebuilt) only when a product holds non-ASCII text
        let watermark = try store.connection.scalar("SELECT value FROM meta WHERE key = 'reports.watermark_rowid'")
        #expect((watermark == nil) == nonASCII)
    }
}
