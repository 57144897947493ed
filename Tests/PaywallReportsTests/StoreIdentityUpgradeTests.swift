import Foundation
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// Hardening item 5: a store from before `PRAGMA application_id` (id 0) is recognised by its tables,
/// upgraded and marked: every count-based version 1–9, and a store that records migrations by
/// identifier but predates `store/application-id`.
struct StoreIdentityUpgradeTests {
    @Test(arguments: 1...9)
    func aStoreOfEveryLegacyVersionIsUpgradedAndMarked(version: Int) throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("v\(version).sqlite")
        let old = try LegacyStore.create(at: path, version: version, from: ReportSchema.migrator)
        #expect(try old.scalar("PRAGMA application_id")?.int64 == 0)
        let connection = try ReportSchema.open(path: path)
        #expect(try connection.scalar("PRAGMA application_id")?.int64 == Int64(Schema.applicationID))
        #expect(try connection.scalar("PRAGMA user_version")?.int64 == Int64(ReportSchema.migrator.latestVersion))
    }

    @Test func aStoreRecordingIdentifiersFromBeforeTheMarkIsMarked() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("unmarked.sqlite")
        // The store's migrations but the marking one, applied by a migrator without an identity
        let before = MigrationGroup(
            owner: "store", Schema.storeMigrations.migrations.filter { $0.name != "application-id" })
        let old = try Migrator([before, ReportSchema.migrations], legacy: Schema.legacyIdentifiers).open(path: path)
        #expect(try old.scalar("PRAGMA application_id")?.int64 == 0)
        let connection = try ReportSchema.open(path: path)
        #expect(try connection.scalar("PRAGMA application_id")?.int64 == Int64(Schema.applicationID))
        #expect(
            try connection.scalar("SELECT count(*) FROM schema_migrations WHERE identifier = 'store/application-id'")?
                .int64 == 1)
    }
}
