import Foundation
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// Hardening item 5, the store side: stores carry `PRAGMA application_id` = ``Schema/applicationID``
/// from their first transaction; another program's database is refused before any write. (Older
/// unmarked stores upgraded and marked: `StoreIdentityUpgradeTests`; the CLI, byte-for-byte and
/// mtime checks per command: `ForeignDatabaseTests`.)
struct StoreIdentityTests {
    @Test func aNewStoreIsMarkedAndTheMigrationSetsTheSameConstant() throws {
        let directory = TemporaryDirectory()
        let connection = try Schema.open(path: directory.path("new.sqlite"))
        #expect(try connection.scalar("PRAGMA application_id")?.int64 == Int64(Schema.applicationID))
        #expect(Schema.applicationID == 0x5057_414E)
        // The migration that marks older stores writes the same constant
        let marking = try #require(Schema.storeMigrations.migrations.first { $0.name == "application-id" })
        let scratch = try Connection(path: directory.path("scratch.sqlite"))
        try scratch.transaction(.immediate) { try marking.apply($0) }
        #expect(try scratch.scalar("PRAGMA application_id")?.int64 == Int64(Schema.applicationID))
    }

    @Test(arguments: [
        "CREATE TABLE users (id, name)",
        "PRAGMA user_version = 3",
        "PRAGMA application_id = 7; CREATE TABLE t (x)",
        "CREATE TABLE events (id, name); CREATE TABLE meta (key, value); PRAGMA user_version = 2",
        "CREATE VIEW v AS SELECT 1",
    ])
    func anotherProgramsDatabaseIsRefusedUntouched(sql: String) throws {
        let directory = TemporaryDirectory()
        let path = directory.path("app.sqlite")
        try Connection(path: path, options: OpenOptions(wal: false)).execute(sql)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = try #require(throws: StorageError.self) { _ = try Schema.open(path: path) }
        guard case .foreignDatabase(let expected, _) = error.kind else {
            Issue.record("expected foreignDatabase, got \(error.kind)")
            return
        }
        #expect(expected == "PaywallAnalytics store")
        #expect(error.description.contains("is an SQLite database but not a PaywallAnalytics store"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let checked = #expect(throws: StorageError.self) { try Schema.migrator.checkIdentity(path: path) }
        #expect(
            { if case .foreignDatabase = checked?.kind { true } else { false } }(), "\(String(describing: checked))")
    }

    @Test func anEmptySQLiteFileBecomesAStore() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("empty.sqlite")
        try Connection(path: path, options: OpenOptions(wal: false)).execute("PRAGMA page_size = 4096; VACUUM")
        try Schema.migrator.checkIdentity(path: path)
        let connection = try Schema.open(path: path)
        #expect(try connection.scalar("PRAGMA application_id")?.int64 == Int64(Schema.applicationID))
    }
}
