import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// `--platform` / `--app-version`: a filtered report equals, file for file, the report of a store that
/// holds only the presentations whose first event matches (built here with SQL from the raw events,
/// not through the library's filter), with both engines and as a nightly run. `data_quality.csv`
/// describes what the store received and stays the unfiltered one.
struct ContextFilterTests {
    static let now = ReportFixture.day1 + 40 * 24 * ReportFixture.hour

    /// A filter, and the same filter written by hand as a condition on the first event's columns.
    static let cases: [(ContextFilter, String)] = [
        (ContextFilter(platforms: ["ios"]), "platform IS 'ios'"),
        (ContextFilter(platforms: ["ios", "web"]), "platform IN ('ios', 'web')"),
        (ContextFilter(platforms: [""]), "platform IS NULL"),
        (ContextFilter(appVersions: ["3.3.0"]), "app_version IS '3.3.0'"),
        (
            ContextFilter(platforms: ["android", ""], appVersions: ["3.2.0", ""]),
            "(platform IS 'android' OR platform IS NULL) AND (app_version IS '3.2.0' OR app_version IS NULL)"
        ),
    ]

    /// A new store holding the events of the presentations of `source` whose first event (smallest
    /// `occurred_at`, then `id`) meets `condition`.
    static func filteredCopy(of source: String, to path: String, where condition: String) throws -> Connection {
        let connection = try ReportSchema.open(path: path)
        try connection.execute("ATTACH DATABASE '\(source)' AS source")
        _ = try connection.run(
            """
            INSERT INTO events SELECT * FROM source.events WHERE pw_id IN (
              SELECT pw_id FROM (
                SELECT pw_id, platform, app_version,
                       row_number() OVER (PARTITION BY pw_id ORDER BY occurred_at, id) AS rank
                FROM source.events)
              WHERE rank = 1 AND (\(condition)))
            """)
        try connection.execute("DETACH DATABASE source")
        return connection
    }

    func csv(_ folder: String, _ file: String) throws -> String {
        try String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8)
    }

    @Test(arguments: 0..<cases.count)
    func aFilteredReportEqualsTheReportOfAStoreHoldingOnlyTheMatchingPresentations(_ index: Int) throws {
        let (filter, condition) = Self.cases[index]
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given a store of random traffic, most events with a context, and a copy of only the matching presentations
        let connection = try EngineAgreementTests.randomStore(at: folder.path("all.sqlite"), seed: 5)
        let filtered = try Self.filteredCopy(
            of: folder.path("all.sqlite"), to: folder.path("only.sqlite"), where: condition)
        let kept = try filtered.scalar("SELECT count(DISTINCT pw_id) FROM events")?.int64 ?? 0
        let all = try connection.scalar("SELECT count(DISTINCT pw_id) FROM events")?.int64 ?? 0
        #expect(kept > 0 && kept < all, "the filter keeps some presentations, not all (\(kept) of \(all))")
        let (from, to) = (try ReportDate("2026-11-01"), try ReportDate("2026-11-06"))
        for engine in ReportEngine.allCases {
            // When the whole store is reported with the filter, the copy without, and the whole store without
            var reports = FunnelReport(connection: connection, now: .constant(Self.now))
            reports.engine = engine
            reports.chunkSize = 83
            try reports.report(from: from, to: to, into: folder.path("\(engine)-unfiltered"))
            reports.contextFilter = filter
            try reports.report(from: from, to: to, into: folder.path("\(engine)-filtered"))
            var copy = FunnelReport(connection: filtered, now: .constant(Self.now))
            copy.engine = engine
            try copy.report(from: from, to: to, into: folder.path("\(engine)-copy"))
            // Then every file equals the copy's; data quality equals the unfiltered report's
            for file in ReportFile.all.map(\.fileName) {
                let expected = try csv(
                    folder.path(file == ReportFile.dataQuality.fileName ? "\(engine)-unfiltered" : "\(engine)-copy"),
                    file)
                let actual = try csv(folder.path("\(engine)-filtered"), file)
                #expect(actual == expected, "\(engine) \(file)\n\(unifiedDiff(expected: expected, actual: actual))")
            }
            #expect(try csv(folder.path("\(engine)-filtered"), "segments.csv").contains("\r\n"))
        }
    }

    @Test func aFilteredNightlyRecomputesItsWindowAndLeavesTheUnfilteredNightlyIncremental() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportSchema.open(path: folder.path("db"))
        let events = EngineAgreementTests.randomEvents(seed: 3)
        let half = events.count / 2
        try ReportFixture.insert(Array(events[..<half]), into: connection)
        let now = ReportFixture.day1 + 7 * 24 * ReportFixture.hour
        // Given an unfiltered nightly run, then the rest of the events
        try FunnelReport(connection: connection, now: .constant(now)).nightly(
            into: folder.path("nightly"), version: "t")
        try ReportFixture.insert(Array(events[half...]), into: connection)
        // When a filtered nightly runs into its own folder
        var filtered = FunnelReport(connection: connection, now: .constant(now))
        filtered.contextFilter = ContextFilter(platforms: ["android"])
        let run = try filtered.nightly(into: folder.path("android"), version: "t")
        // Then it equals a filtered report over its window, recomputing every day of it
        try filtered.report(
            from: try ReportDate(run.windowFrom), to: try ReportDate(run.windowTo), into: folder.path("android-scan"))
        for file in ReportFile.all.map(\.fileName) {
            #expect(try csv(folder.path("android"), file) == csv(folder.path("android-scan"), file), "\(file)")
        }
        #expect(run.daysRecomputed.first == run.windowFrom && run.daysRecomputed.last == run.windowTo)
        // And the partials were left alone: the next unfiltered run still recomputes the days the new
        // events touched and equals a full scan
        #expect(try connection.scalar("SELECT count(*) FROM report_dirty_buckets")?.int64 ?? 0 > 0)
        let unfiltered = try FunnelReport(connection: connection, now: .constant(now)).nightly(
            into: folder.path("nightly"), version: "t")
        #expect(!unfiltered.daysRecomputed.isEmpty)
        try FunnelReport(connection: connection, now: .constant(now)).report(
            from: try ReportDate(unfiltered.windowFrom), to: try ReportDate(unfiltered.windowTo),
            into: folder.path("scan"))
        for file in ReportFile.all.map(\.fileName) {
            #expect(try csv(folder.path("nightly"), file) == csv(folder.path("scan"), file), "\(file)")
        }
    }

    @Test func aStoreWhoseRollupsPredateTheContextIsRebuiltWithIt() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("old.sqlite")
        // Given a store migrated by the program before the context columns, with a rollup, a watermark
        // and a day partial
        let group = ReportSchema.migrations
        let before = Array(group.migrations.prefix { $0.name != "presentation-context" })
        #expect(before.count == group.migrations.firstIndex { $0.name == "presentation-context" })
        let old = try Schema.migrator(registering: [MigrationGroup(owner: group.owner, before)]).open(path: path)
        try ReportFixture.insert(EngineAgreementTests.randomEvents(seed: 9), into: old)
        _ = try old.run("INSERT INTO report_placements (key, placement) VALUES (0, 'stale')")
        _ = try old.run(
            """
            INSERT INTO report_presentations (pw_id, first_at, first_id, placement_key, customer_key, plan_selected,
              purchase_started) VALUES (x'00', 1, x'00', 0, 0, 0, 0)
            """)
        _ = try old.run("INSERT INTO report_day_partials (day_start, day_end, partial) VALUES (0, 1, x'03')")
        _ = try old.run("INSERT INTO meta (key, value) VALUES ('reports.watermark_rowid', '999999')")
        #expect(
            try old.scalar("SELECT count(*) FROM pragma_table_info('report_presentations') WHERE name = 'platform'")?
                .int64 == 0)
        // When this program opens it
        let connection = try ReportSchema.open(path: path)
        // Then the rollups are emptied and the watermark forgotten, and the next report folds every
        // event again with its context: it equals the report of a store built by this program
        #expect(try connection.scalar("SELECT count(*) FROM report_presentations")?.int64 == 0)
        #expect(try connection.scalar("SELECT count(*) FROM report_day_partials")?.int64 == 0)
        #expect(try connection.scalar("SELECT value FROM meta WHERE key = 'reports.watermark_rowid'") == nil)
        let (from, to) = (try ReportDate("2026-11-01"), try ReportDate("2026-11-06"))
        try FunnelReport(connection: connection, now: .constant(0)).report(
            from: from, to: to, into: folder.path("upgraded"))
        let fresh = try EngineAgreementTests.randomStore(at: folder.path("fresh.sqlite"), seed: 9)
        try FunnelReport(connection: fresh, now: .constant(0)).report(from: from, to: to, into: folder.path("fresh"))
        for file in ReportFile.all.map(\.fileName) {
            #expect(try csv(folder.path("upgraded"), file) == csv(folder.path("fresh"), file), "\(file)")
        }
        #expect(try csv(folder.path("upgraded"), "segments.csv").contains("ios"))
    }
}
