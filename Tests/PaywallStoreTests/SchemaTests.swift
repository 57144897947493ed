import Foundation
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

struct SchemaTests {
    @Test func createsTheSharedTablesAtTheLatestVersion() throws {
        // Given a new file
        let directory = TemporaryDirectory()
        // When the store schema is opened
        let connection = try Schema.open(path: directory.path("store.sqlite"))
        // Then every contract table exists, strict, at the latest version
        let tables = try connection.all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            $0.string(at: 0) ?? ""
        }
        let contract = ["dead_letters", "deliveries", "drops", "events", "meta", "outbox", "quarantine"]
        #expect(Set(contract).isSubset(of: tables))
        #expect(
            Set(tables) == Set(Schema.tables + [Migrator.table]),
            "the store creates the tables it declares, and the migrator its record: \(tables)")
        #expect(try connection.scalar("PRAGMA user_version")?.int64 == Int64(Schema.latestVersion))
        #expect(try connection.scalar("PRAGMA integrity_check")?.string == "ok")
        let error = #expect(throws: StorageError.self) {
            try connection.run("INSERT INTO outbox (event_rowid, occurred_at) VALUES (1, 'soon')")
        }
        #expect(error?.kind == .constraint)
    }

    @Test func reopeningAMigratedStoreChangesNothing() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("store.sqlite")
        _ = try Schema.open(path: path)
        let connection = try Schema.open(path: path)
        #expect(try Schema.migrator.migrate(connection) == (from: Schema.latestVersion, to: Schema.latestVersion))
    }
}
