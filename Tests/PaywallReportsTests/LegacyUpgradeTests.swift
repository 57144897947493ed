import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// Stores written by the count-based programs (`user_version` 1–9, no `schema_migrations`) upgrade
/// in place to migrations recorded by identifier, and end with the schema of a new store.
struct LegacyUpgradeTests {
    /// Every schema object, as SQLite keeps it (the migrator's own record aside).
    static func schema(_ connection: Connection) throws -> [String] {
        try connection.all(
            """
            SELECT type || ' ' || name || ' ' || tbl_name || ' ' || coalesce(sql, '') FROM sqlite_schema
            WHERE name != 'schema_migrations' AND name NOT LIKE 'sqlite_autoindex_schema_migrations%'
            ORDER BY type, name
            """
        ) { $0.string(at: 0) ?? "" }
    }

    static func applied(_ connection: Connection) throws -> [String: Bool] {
        Dictionary(
            uniqueKeysWithValues: try connection.all(
                "SELECT identifier, applied_at IS NULL FROM schema_migrations"
            ) { ($0.string(at: 0) ?? "", $0.int64(at: 1) == 1) })
    }

    @Test(arguments: 1...9)
    func aStoreOfEveryLegacyVersionUpgradesInPlace(version: Int) throws {
        // Given a real file of legacy version N holding the report fixture's events
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("v\(version).sqlite")
        let old = try LegacyStore.create(at: path, version: version, from: ReportSchema.migrator)
        try ReportFixture.insert(ReportFixture.events, into: old)
        #expect(try old.scalar("PRAGMA user_version")?.int64 == Int64(version))
        // When the current program opens it
        let connection = try ReportSchema.open(path: path)
        // Then the first N legacy migrations are recorded (without a time) and the rest applied
        let applied = try Self.applied(connection)
        #expect(Set(applied.keys) == Set(ReportSchema.migrator.steps.map(\.identifier)))
        for (index, identifier) in Schema.legacyIdentifiers.enumerated() {
            #expect(applied[identifier] == (index < version), "\(identifier) recorded as applied before identifiers")
        }
        #expect(try connection.scalar("PRAGMA user_version")?.int64 == Int64(ReportSchema.migrator.latestVersion))
        // and the schema is the one of a new store, the file intact and the events all kept
        let fresh = try ReportSchema.open(path: folder.path("fresh.sqlite"))
        #expect(try Self.schema(connection) == Self.schema(fresh))
        #expect(try connection.scalar("PRAGMA integrity_check")?.string == "ok")
        #expect(try connection.scalar("SELECT count(*) FROM events")?.int64 == Int64(ReportFixture.events.count))
        // and opening it again changes nothing
        let version = try connection.scalar("PRAGMA user_version")?.int64
        #expect(try ReportSchema.migrator.migrate(connection) == (from: Int(version ?? 0), to: Int(version ?? 0)))
        // and the reports over the upgraded store are right
        _ = try FunnelReport(connection: connection, now: .constant(ReportFixture.day5))
            .report(from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"), into: folder.path("out"))
        for file in [
            "encounter_funnel.csv", "conversion_funnel.csv", "cohort_conversion.csv", "placement_summary.csv",
            "product_mix.csv",
        ] {
            try expectGolden("utc", file, in: folder.path("out"))
        }
    }

    @Test func aStoreFromANewerProgramIsRefusedUntouched() throws {
        // Given a legacy store at a version above the nine
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("v10.sqlite")
        let old = try LegacyStore.create(at: path, version: 9, from: ReportSchema.migrator)
        try old.execute("PRAGMA journal_mode = DELETE; PRAGMA user_version = 10")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // When it is opened, then it is refused and left as it was
        let error = try #require(throws: StorageError.self) { _ = try ReportSchema.open(path: path) }
        #expect(error.kind == .schemaTooNew(found: 10, known: ReportSchema.migrator.latestVersion))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}

/// The store and the reports each own their migrations, and share one file.
struct SchemaOwnersTests {
    @Test func eachOwnerCreatesTheTablesItDeclares() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let tables = { (connection: Connection) in
            Set(try connection.all("SELECT name FROM sqlite_schema WHERE type = 'table'") { $0.string(at: 0) ?? "" })
        }
        #expect(try tables(Schema.open(path: folder.path("store"))) == Set(Schema.tables + [Migrator.table]))
        #expect(
            try tables(ReportSchema.open(path: folder.path("both")))
                == Set(Schema.tables + ReportSchema.tables + [Migrator.table]))
        #expect(Schema.legacyIdentifiers.allSatisfy(Set(ReportSchema.migrator.steps.map(\.identifier)).contains))
    }

    @Test func aFileAnAppCreatedWithTheStoreAloneGetsTheReportsTablesWhenTheToolOpensIt() throws {
        // Given a store an app created linking only PaywallStore (no reports' tables)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("app.sqlite")
        let app = try Schema.open(path: path)
        try ReportFixture.insert(ReportFixture.events, into: app)
        let appVersion = try #require(try app.scalar("PRAGMA user_version")?.int64)
        #expect(appVersion == Int64(Schema.latestVersion))
        #expect(appVersion > Int64(Schema.legacyIdentifiers.count), "programs before identifiers refuse it")
        // When the tool opens it with the reports registered
        let tool = try ReportSchema.open(path: path)
        // Then the reports' migrations are applied and recorded, the version does not go back, and the
        // reports run over it; the app still opens it
        #expect(
            Set(try tool.all("SELECT identifier FROM schema_migrations") { $0.string(at: 0) ?? "" })
                == Set(ReportSchema.migrator.steps.map(\.identifier)))
        // (never lower; higher once the applied count passes the first non-legacy version)
        let toolVersion = try #require(try tool.scalar("PRAGMA user_version")?.int64)
        #expect(toolVersion >= appVersion)
        #expect(toolVersion == Int64(ReportSchema.migrator.latestVersion))
        _ = try FunnelReport(connection: tool, now: .constant(ReportFixture.day5))
            .report(from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"), into: folder.path("out"))
        try expectGolden("utc", "encounter_funnel.csv", in: folder.path("out"))
        #expect(try Schema.migrator.migrate(Schema.open(path: path)) == (from: Int(toolVersion), to: Int(toolVersion)))
    }

    @Test func anAppLinkingOnlyTheStoreOpensAFileWithTheReportsTablesAndANewerReportsMigration() throws {
        // Given a file migrated with the reports, where a newer program then added a reports migration
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("db")
        let cli = try ReportSchema.open(path: path, options: OpenOptions(wal: false))
        try cli.run("INSERT INTO schema_migrations (identifier) VALUES ('reports/from-the-future')")
        // When an app that links only the store opens it, it works (the reports are not its tables)
        let store = try EventStore(path: path, now: .constant(0))
        #expect(try store.stats().eventsByName.isEmpty)
        // while a program with the reports refuses it, naming the migration
        let error = try #require(throws: StorageError.self) { _ = try ReportSchema.open(path: path) }
        #expect(error.description.contains("reports/from-the-future"))
        // and an unknown store migration is refused by the store alone too
        try cli.run("INSERT INTO schema_migrations (identifier) VALUES ('store/from-the-future')")
        let storeError = #expect(throws: StorageError.self) { _ = try EventStore(path: path, now: .constant(0)) }
        #expect(storeError?.description.contains("store/from-the-future") == true)
    }
}
