import Foundation
import PaywallSQLite
import PaywallTestSupport
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
        #expect(tables == ["a", "b", "schema_migrations"])
        #expect(try Self.applied(connection) == ["main/1-a", "main/2-b"])
        #expect(try Migrator(migrations).migrate(connection) == (from: 2, to: 2))
    }

    @Test func rollsBackAFailingMigrationAndStopsThere() throws {
        // Given a second migration that fails half-way
        let directory = TemporaryDirectory()
        let path = directory.path("fail.sqlite")
        let broken = [migrations[0], Migration("2-broken", sql: "CREATE TABLE c (z INTEGER); SELECT * FROM missing")]
        // When the database is opened
        let error = #expect(throws: StorageError.self) { _ = try Migrator(broken).open(path: path) }
        #expect(error?.kind == .other, "no such table: \(String(describing: error))")
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
        #expect(error.description.contains("A newer version of its program wrote this database"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    // MARK: Identifiers and owners

    /// Two owners; `legacy` lists what a count-based program applied (`x/one`, then `y/one`).
    static let x = MigrationGroup(
        owner: "x",
        [
            Migration("one", sql: "CREATE TABLE x1 (v INTEGER) STRICT"),
            Migration("two", sql: "CREATE TABLE x2 (v INTEGER) STRICT"),
        ])
    static let y = MigrationGroup(owner: "y", [Migration("one", sql: "CREATE TABLE y1 (v INTEGER) STRICT")])
    static let legacy = ["x/one", "y/one"]

    static func applied(_ connection: Connection) throws -> [String] {
        try connection.all("SELECT identifier FROM schema_migrations ORDER BY identifier") { $0.string(at: 0) ?? "" }
    }

    static func version(_ connection: Connection) throws -> Int64? {
        try connection.scalar("PRAGMA user_version")?.int64
    }

    @Test func aCountBasedDatabaseIsRecordedAsItsLegacyPrefixThenMigrated() throws {
        // Given a database a count-based program left at version 1 (x/one applied)
        let directory = TemporaryDirectory()
        let path = directory.path("legacy.sqlite")
        let old = try Connection(path: path)
        try old.execute("CREATE TABLE x1 (v INTEGER) STRICT; PRAGMA user_version = 1")
        // When the owners open it
        let connection = try Migrator([Self.x, Self.y], legacy: Self.legacy).open(path: path)
        // Then x/one is recorded without a time (not re-run), the rest is applied with one
        #expect(try Self.applied(connection) == ["x/one", "x/two", "y/one"])
        #expect(try connection.scalar("SELECT applied_at FROM schema_migrations WHERE identifier = 'x/one'") == .null)
        #expect(try connection.scalar("SELECT count(*) FROM schema_migrations WHERE applied_at > 0")?.int64 == 2)
        // and y/one ran before x/two: the legacy order first, so the version passes through 2 and ends above it
        #expect(try Self.version(connection) == 3)
    }

    @Test func theVersionStaysLegacyWhileTheAppliedSetIsALegacyPrefixAndNeverDecreases() throws {
        let directory = TemporaryDirectory()
        // Given the legacy migrations only: the version is their count, as a count-based program wrote
        let legacyOnly = [MigrationGroup(owner: "x", [Self.x.migrations[0]]), Self.y]
        let full = try Migrator(legacyOnly, legacy: Self.legacy).open(path: directory.path("a.sqlite"))
        #expect(try Self.version(full) == 2)
        // Given only owner x (its second migration is newer than the legacy list): above every legacy version
        let partial = try Migrator([Self.x], legacy: Self.legacy).open(path: directory.path("b.sqlite"))
        #expect(try Self.version(partial) == 3)
        // When owner y is added later, the set is legacy again but the version does not go back
        #expect(try Migrator([Self.x, Self.y], legacy: Self.legacy).migrate(partial) == (from: 3, to: 3))
    }

    @Test func identifiersOfOwnersNotRegisteredHereAreLeftAlone() throws {
        // Given a file migrated by a program with owners x and y
        let directory = TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        _ = try Migrator([Self.x, Self.y], legacy: Self.legacy).open(path: path)
        // When a program that registers only x opens it
        let connection = try Migrator([Self.x], legacy: Self.legacy).open(path: path)
        // Then it is opened, and y's record and table stay
        #expect(try Self.applied(connection) == ["x/one", "x/two", "y/one"])
        #expect(try Self.version(connection) == 3)
    }

    @Test(arguments: ["x/three", "y/two"])
    func anUnknownIdentifierOfARegisteredOwnerIsRefusedUntouched(identifier: String) throws {
        // Given a file where a newer program applied a migration of owner x or y
        let directory = TemporaryDirectory()
        let path = directory.path("newer.sqlite")
        let newer = try Migrator([Self.x, Self.y], legacy: Self.legacy).open(
            path: path, options: OpenOptions(wal: false))
        try newer.run("INSERT INTO schema_migrations (identifier, applied_at) VALUES (?1, 1)", [.text(identifier)])
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // When this program (x and y) opens it
        let error = try #require(throws: StorageError.self) {
            _ = try Migrator([Self.x, Self.y], legacy: Self.legacy).open(path: path)
        }
        // Then it is refused, naming the migration, and the file is byte-for-byte the same
        #expect(error.kind == .schemaTooNew(found: 3, known: 3))
        #expect(error.description.contains(identifier))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        // while a program that does not register that owner opens it
        let owner = String(identifier.prefix { $0 != "/" })
        let others = [Self.x, Self.y].filter { $0.owner != owner }
        #expect(try Self.applied(Migrator(others, legacy: Self.legacy).open(path: path)).contains(identifier))
    }

    @Test func aVersionAboveWhatAnyRecordingProgramWritesIsRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("future.sqlite")
        let newer = try Migrator([Self.x, Self.y], legacy: Self.legacy).open(
            path: path, options: OpenOptions(wal: false))
        try newer.execute("PRAGMA user_version = 4")
        let error = try #require(throws: StorageError.self) {
            _ = try Migrator([Self.x, Self.y], legacy: Self.legacy).open(path: path)
        }
        #expect(error.kind == .schemaTooNew(found: 4, known: 3))
    }
}
