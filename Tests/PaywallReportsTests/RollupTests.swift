import Foundation
import PaywallCore
@testable import PaywallReports
import PaywallSQLite
import PaywallStore
import Testing

/// The Swift fold (Rollup) and the set-based SQL definition (reports/rollup_presentations.sql)
/// build the same rollup, whatever the chunking.
struct RollupTests {
    static let columns = "pw_id, first_at, first_id, placement, user_id, impression_at, plan_selected, purchase_started, "
        + "close_at, close_id, close_result, close_via, close_open_s, close_product"

    func table(_ connection: Connection) throws -> [[SQLValue]] {
        try connection.all("SELECT \(Self.columns) FROM report_presentations ORDER BY pw_id") { row in
            (0..<14).map { row.value(at: $0) }
        }
    }

    @Test(arguments: [1, 7, 1_000])
    func theSwiftFoldEqualsTheSQLDefinition(_ chunk: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Given the same random events in two stores
        let swift = try EngineAgreementTests.randomStore(at: folder.path("a"), seed: 11)
        let sql = try EngineAgreementTests.randomStore(at: folder.path("b"), seed: 11)
        // When one is folded by Rollup in chunks and the other by the SQL file in chunks
        var rollup = Rollup(connection: swift)
        rollup.chunkSize = Int64(chunk)
        _ = try rollup.refresh()
        let top = try sql.scalar("SELECT max(rowid) FROM events")?.int64 ?? 0
        var after: Int64 = 0
        while after < top {
            let through = min(top, after + Int64(chunk))
            try sql.run(ReportQueries.rollupPresentations, NamedParameters.values(
                for: ReportQueries.rollupPresentations, ["after_rowid": .integer(after), "through_rowid": .integer(through)]))
            after = through
        }
        // Then both tables hold the same rows, and the Swift fold's integer keys name the same customer and placement
        let expected = try table(sql)
        #expect(expected.count > 500)
        #expect(try table(swift) == expected)
        let keyed = try swift.scalar("""
            SELECT count(*) FROM report_presentations AS p
            JOIN report_customers AS c ON c.key = p.customer_key AND c.user_id = p.user_id
            JOIN report_placements AS l ON l.key = p.placement_key AND l.placement = p.placement
            """)?.int64
        #expect(keyed == Int64(expected.count))
    }

    @Test func aSecondRefreshWithoutNewEventsReadsNothing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let connection = try ReportFixture.makeStore(at: folder.path("db"))
        let first = try Rollup(connection: connection).refresh()
        let second = try Rollup(connection: connection).refresh()
        #expect(first.eventsRead == Int64(ReportFixture.events.count))
        #expect(second.eventsRead == 0 && second.touchedBuckets.isEmpty)
        #expect(second.watermarkAfter == first.watermarkAfter)
    }
}

struct ReportsMigrationTests {
    @Test func aStoreWithTheFirstRollupSchemaIsRebuiltAfterMigrating() throws {
        // Given a store at schema version 2 (the first rollup layout) whose rollup was already built
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("db")
        let old = try Migrator(Array(Schema.migrations.prefix(2))).open(path: path)
        try ReportFixture.insert(ReportFixture.events, into: old)
        try old.run(ReportQueries.rollupPresentations, NamedParameters.values(
            for: ReportQueries.rollupPresentations, ["after_rowid": .integer(0), "through_rowid": .integer(1_000)]))
        try old.run("INSERT INTO meta (key, value) VALUES ('reports.watermark_rowid', '1000')")
        // When the current program opens it and reports
        let connection = try Schema.open(path: path)
        let summary = try FunnelReport(connection: connection, now: .constant(ReportFixture.day5))
            .report(from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"), into: folder.path("out"))
        // Then the rollups were rebuilt from every event and the reports are right
        #expect(try connection.scalar("PRAGMA user_version")?.int64 == Int64(Schema.latestVersion))
        #expect(summary.eventsRead == Int64(ReportFixture.events.count))
        for file in ["encounter_funnel.csv", "conversion_funnel.csv", "cohort_conversion.csv", "placement_summary.csv",
                     "product_mix.csv"] {
            try expectGolden("utc", file, in: folder.path("out"))
        }
    }
}
