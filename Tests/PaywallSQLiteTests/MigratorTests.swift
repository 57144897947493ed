import Foundation
import PaywallTestSupport
import PaywallSQLite
import Testing

struct MigratorTests {
    let migrations = [
        Migration("1-a", sql: "CREATE TABLE a (x INTEGER) STRICT"),
        Migration("2-b", sql: "CREATE TABLE b (y INTEGER) STRICT; CREATE INDEX b_y ON b (y)"),
    ]

    @Test func appliesPendingMigrationsInOrderAndRecordsTheVersion() throws {
        // Given a database at version 1
        let directory = TemporaryDirectory()
        let path = directory.path("m.sqlite")
        _ = try Migrator(Array(migrations.prefix(1))).open(path: path)
        // When it is opened with two migrations known
        let connection = try Migrator(migrations).open(path: path)
        // Then only the second ran and the version is 2
        #expect(try connection.scalar("PRAGMA user_version")?.int64 == 2)
        let tables = try connection.all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            $0.string(at: 0) ?? ""
        }
        #expect(tables == ["a", "b"])
        #expect(try Migrator(migrations).migrate(connection) == (from: 2, to: 2))
    }

    @Test func rollsBackAFailingMigrationAndStopsThere() throws {
        // Given a second migration that fails half-way
        let directory = TemporaryDirectory()
        let path = directory.path("fail.sqlite")
        let broken = [migrations[0], Migration("2-broken", sql: "CREATE TABLE c (z INTEGER); SELECT * FROM missing")]
        // When the database is opened
        #expect(throws: StorageError.self) { _ = try Migrator(broken).open(path: path) }
        // Then version 1 stands and nothing of migration 2 remains
        let connection = try Connection(path: path)
        #expect(try connection.scalar("PRAGMA user_version")?.int64 == 1)
        #expect(try connection.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'c'")?.int64 == 0)
    }

    @Test func refusesANewerDatabaseAndLeavesItUntouched() throws {
        // Given a database at version 3 in rollback-journal mode
        let directory = TemporaryDirectory()
        let path = directory.path("newer.sqlite")
        let writer = try Connection(path: path, options: OpenOptions(wal: false))
        try writer.execute("CREATE TABLE future (x INTEGER); PRAGMA user_version = 3")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // When a program knowing version 2 opens it
        let error = try #require(throws: StorageError.self) { _ = try Migrator(migrations).open(path: path) }
        // Then it is refused with a clear message and the file is byte-for-byte the same (not even WAL set)
        #expect(error.kind == .schemaTooNew(found: 3, known: 2))
        #expect(error.description.contains("version 3"))
        #expect(error.description.contains("Upgrade"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }
}
