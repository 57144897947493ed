import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// The nightly job reads its per-day partials instead of scanning every presentation; these tests
/// hold it to the full scan: after every batch of late, out-of-order events its CSVs must equal a
/// from-scratch `report` over the same window, byte for byte, and so must the page's offering trends.
struct NightlyPartialsTests {
    /// "Now" for the nightly runs: 2026-11-08, after the random traffic's six days.
    static let now = ReportFixture.day1 + 7 * 24 * ReportFixture.hour

    func csv(_ folder: String, _ file: String) throws -> String {
        try String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8)
    }

    /// Runs the nightly job into `out`, then a from-scratch full-scan report over the nightly's window
    /// on a copy of the events, and expects identical CSVs.
    func expectNightlyEqualsFullScan(
        _ connection: Connection, _ folder: TemporaryDirectory, timezone: String,
        run: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> NightlyRun {
        let nightly = try FunnelReport(connection: connection, now: .constant(Self.now))
            .nightly(into: folder.path("nightly"), timezone: timezone, version: "t")
        let reports = FunnelReport(connection: connection, now: .constant(Self.now))
        try reports.report(
            from: try ReportDate(nightly.windowFrom), to: try ReportDate(nightly.windowTo), timezone: timezone,
            into: folder.path("scan-\(run)"))
        for file in ReportFile.all.map(\.fileName) {
            let expected = try csv(folder.path("scan-\(run)"), file)
            let actual = try csv(folder.path("nightly"), file)
            #expect(
                actual == expected,
                "run \(run), \(timezone), \(file)\n\(unifiedDiff(expected: expected, actual: actual))",
                sourceLocation: sourceLocation)
        }
        // and the page's offering trends (each offering's counts from the window's first day through
        // each day, and its revenue per customer) are the full scan's, point for point
        let trends = HTMLOfferingTrendsTests.trendTitles(try csv(folder.path("nightly"), HTMLReport.fileName))
        #expect(!trends.isEmpty, "run \(run): no offering trends on the page", sourceLocation: sourceLocation)
        #expect(
            trends == HTMLOfferingTrendsTests.trendTitles(try csv(folder.path("scan-\(run)"), HTMLReport.fileName)),
            "run \(run), \(timezone): the nightly's offering trends differ from the full scan's",
            sourceLocation: sourceLocation)
        return nightly
    }

    @Test(arguments: ["UTC", "America/New_York", "Asia/Kolkata"])
    func nightlyRunsOverLateEventsEqualTheFullScan(_ timezone: String) throws {
        // Given random traffic arriving in five shuffled batches (late events, moved first events,
        // second closes), with a nightly run after each batch
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportSchema.open(path: folder.path("db"))
        let events = EngineAgreementTests.randomEvents(seed: 11)
        let batches = stride(from: 0, to: events.count, by: events.count / 5 + 1).map {
            Array(events[$0..<min(events.count, $0 + events.count / 5 + 1)])
        }
        var recomputed: [[String]] = []
        for (index, batch) in batches.enumerated() {
            try ReportFixture.insert(batch, into: connection)
            // When the nightly job runs; Then it equals a full scan of the same window
            recomputed.append(
                try expectNightlyEqualsFullScan(connection, folder, timezone: timezone, run: index).daysRecomputed)
        }
        // And later runs rescanned only the days that received events
        #expect(recomputed.allSatisfy { !$0.isEmpty })
        let again = try expectNightlyEqualsFullScan(connection, folder, timezone: timezone, run: 99)
        #expect(again.daysRecomputed.isEmpty)
    }

    @Test func aLateEventRescansOnlyItsDaysAndEventsFoldedByAReportCountToo() throws {
        // Given a nightly run over the random traffic
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try EngineAgreementTests.randomStore(at: folder.path("db"), seed: 5)
        _ = try expectNightlyEqualsFullScan(connection, folder, timezone: "UTC", run: 0)
        // When a late impression for a new presentation on 2026-11-03 is folded by a plain `report`
        // run (not the nightly job), and then the nightly job runs
        try ReportFixture.insert(
            [ReportFixture.shown(90_001, ReportFixture.day1 + 50 * ReportFixture.hour, "u1", 9_001, "late")],
            into: connection)
        try FunnelReport(connection: connection, now: .constant(Self.now))
            .report(from: try ReportDate("2026-11-03"), to: try ReportDate("2026-11-03"), into: folder.path("interim"))
        let run = try expectNightlyEqualsFullScan(connection, folder, timezone: "UTC", run: 1)
        // Then exactly that day was rescanned, and the new placement is in the nightly outputs
        #expect(run.daysRecomputed == ["2026-11-03"])
        #expect(try csv(folder.path("nightly"), "encounter_funnel.csv").contains("2026-11-03,late,1,1,0,1,1.0000\r\n"))
    }

    @Test func moreThanAWeekOfDirtyDaysIsRescannedWithoutTheBackgroundLoad() throws {
        // Given a nightly run over the random traffic (the following runs load the partials of
        // clean days on a second thread while a week or less of dirty days is rescanned)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try EngineAgreementTests.randomStore(at: folder.path("db"), seed: 8)
        _ = try expectNightlyEqualsFullScan(connection, folder, timezone: "UTC", run: 0)
        // When late impressions arrive for nine different days, and for two days the next run
        let late = (0..<9).map {
            ReportFixture.shown(
                91_000 + $0, ReportFixture.day1 + Int64($0) * 24 * ReportFixture.hour + 7,
                "u\($0)", 9_100 + $0, "late")
        }
        try ReportFixture.insert(late, into: connection)
        let many = try expectNightlyEqualsFullScan(connection, folder, timezone: "UTC", run: 1)
        try ReportFixture.insert(
            [
                ReportFixture.shown(92_000, ReportFixture.day1 + 30 * ReportFixture.hour, "u1", 9_200, "late"),
                ReportFixture.shown(92_001, ReportFixture.day1 + 80 * ReportFixture.hour, "u2", 9_201, "late"),
            ],
            into: connection)
        let few = try expectNightlyEqualsFullScan(connection, folder, timezone: "UTC", run: 2)
        // Then both equal the full scan (above), the first rescanned the nine days and the second its two
        #expect(many.daysRecomputed == (1...9).map { "2026-11-0\($0)" })
        #expect(few.daysRecomputed == ["2026-11-02", "2026-11-04"])
    }

    @Test func aFailedUpdateWhileTheOtherDaysLoadOnASecondThreadLeavesTheOutputsAndTheNextRunWorks() throws {
        // Given a nightly run over the random traffic, then a late event (a week or less of dirty
        // days: the next run reads the other days' partials on a second thread while it updates)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try EngineAgreementTests.randomStore(at: folder.path("db"), seed: 21)
        _ = try expectNightlyEqualsFullScan(connection, folder, timezone: "UTC", run: 0)
        let before = try csv(folder.path("nightly"), "run.json")
        try ReportFixture.insert(
            [ReportFixture.shown(93_000, ReportFixture.day1 + 40 * ReportFixture.hour, "u4", 9_300, "late")],
            into: connection)
        // When writing a day partial fails inside the update
        try connection.execute(
            """
            CREATE TRIGGER refuse_partials BEFORE INSERT ON report_day_partials
            BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
            """)
        let error = #expect(throws: ReportError.self) {
            try FunnelReport(connection: connection, now: .constant(Self.now)).nightly(
                into: folder.path("nightly"), version: "t")
        }
        #expect(
            { if case .storage(let storage) = error { storage.kind == .constraint } else { false } }(),
            "the trigger's refusal: \(String(describing: error))")
        // Then the run ended (the second thread was stopped), the previous outputs are untouched and
        // the day is still marked for the next run
        #expect(try csv(folder.path("nightly"), "run.json") == before)
        #expect(try connection.scalar("SELECT count(*) FROM report_dirty_buckets")?.int64 ?? 0 > 0)
        // And without the fault the next run recomputes that day and equals the full scan
        try connection.execute("DROP TRIGGER refuse_partials")
        let run = try expectNightlyEqualsFullScan(connection, folder, timezone: "UTC", run: 1)
        #expect(run.daysRecomputed == ["2026-11-02"])
    }

    /// Twenty-four days of traffic (three presentations a day, one of them closed with a purchase
    /// and one by the close button), more stored partials than the second thread reads ahead of the
    /// merge (``BackgroundPartialsLoad/capacity``).
    static func longHistory(days: Int) -> [ReportFixture.Event] {
        (0..<days).flatMap { day -> [ReportFixture.Event] in
            let at = ReportFixture.day1 + Int64(day) * 24 * ReportFixture.hour + 9 * ReportFixture.hour
            let id = 10 * day + 1
            return [
                ReportFixture.shown(id, at, "u\(day % 7)", id, "onboarding", offering: day % 2 == 0 ? "A" : "B"),
                ReportFixture.closed(id + 1, at + 60_000, "u\(day % 7)", id, "onboarding", "purchased", "purchase", 60),
                ReportFixture.shown(id + 2, at + 1_000, "u\(day % 5)", id + 2, "settings"),
                ReportFixture.closed(
                    id + 3, at + 9_000, "u\(day % 5)", id + 2, "settings", "dismissed", "close_button", 8.5),
                ReportFixture.shown(id + 4, at + 2_000, "v\(day)", id + 4, "onboarding", offering: "A"),
            ]
        }
    }

    @Test func moreDaysThanTheSecondThreadReadsAheadAreAllMergedAndADirtyDaysOldPartialIsLeftOut() throws {
        // Given a nightly run over 24 days of traffic (the next runs read the stored partials on a
        // second thread from the end of their refresh, before they know which days they recompute)
        #expect(Self.longHistory(days: 24).count / 5 > BackgroundPartialsLoad.capacity)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportSchema.open(path: folder.path("db"))
        #expect(try connection.scalar("PRAGMA journal_mode")?.string?.lowercased() == "wal")
        try ReportFixture.insert(Self.longHistory(days: 24), into: connection)
        _ = try expectNightlyEqualsFullScan(connection, folder, timezone: "UTC", run: 0)
        // When a late impression lands on the third day and a new presentation on the last one
        try ReportFixture.insert(
            [
                ReportFixture.shown(
                    95_000, ReportFixture.day1 + 2 * 24 * ReportFixture.hour + 5, "late", 9_500, "onboarding",
                    offering: "B"),
                ReportFixture.shown(
                    95_001, ReportFixture.day1 + 23 * 24 * ReportFixture.hour + 5, "new", 9_501, "settings"),
            ],
            into: connection)
        let run = try expectNightlyEqualsFullScan(connection, folder, timezone: "UTC", run: 1)
        // Then the run equals the full scan (above): the two days' old partials, read before the
        // update, were left out, and every other day merged
        #expect(run.daysRecomputed == ["2026-11-03", "2026-11-24"])
    }

    @Test func anUnreadablePartialOfADayTheRunRecomputesAnywayIsNoReasonToRebuild() throws {
        // Given a nightly run over the random traffic
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try EngineAgreementTests.randomStore(at: folder.path("db"), seed: 9)
        _ = try expectNightlyEqualsFullScan(connection, folder, timezone: "UTC", run: 0)
        // When the stored partial of 2026-11-02 is damaged and a late event lands on that day
        let dayStart = ReportFixture.day1 + 24 * ReportFixture.hour
        #expect(
            try connection.run(
                "UPDATE report_day_partials SET partial = x'00010203' WHERE day_start = ?",
                [
                    .integer(dayStart)
                ]) == 1)
        try ReportFixture.insert(
            [ReportFixture.shown(96_000, dayStart + 40 * 60_000, "u3", 9_600, "late")], into: connection)
        // Then the next run recomputes that day alone (the second thread read the damaged bytes, and
        // they were never merged) and equals the full scan
        let run = try expectNightlyEqualsFullScan(connection, folder, timezone: "UTC", run: 1)
        #expect(run.daysRecomputed == ["2026-11-02"])
    }

    @Test func anotherTimeZoneStartsOverAndAnUnreadablePartialIsRebuilt() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try EngineAgreementTests.randomStore(at: folder.path("db"), seed: 6)
        _ = try expectNightlyEqualsFullScan(connection, folder, timezone: "UTC", run: 0)
        // When the nightly job runs in another zone, every day is cut again in that zone
        let tokyo = try expectNightlyEqualsFullScan(connection, folder, timezone: "Asia/Tokyo", run: 1)
        #expect(tokyo.daysRecomputed.count >= 6)
        // When a stored partial is damaged, the run rebuilds the partials and still equals the full scan
        _ = try connection.run(
            "UPDATE report_day_partials SET partial = x'00010203' WHERE day_start = (SELECT min(day_start) FROM report_day_partials)"
        )
        let rebuilt = try expectNightlyEqualsFullScan(connection, folder, timezone: "Asia/Tokyo", run: 2)
        #expect(rebuilt.daysRecomputed.count >= 6)
        // And a partial stored by an earlier format (its first byte) is not read: every day is rebuilt
        _ = try connection.run(
            "UPDATE report_day_partials SET partial = CAST(x'\(String(format: "%02X", DayPartial.format - 1))' || substr(partial, 2) AS BLOB)"
        )
        let upgraded = try expectNightlyEqualsFullScan(connection, folder, timezone: "Asia/Tokyo", run: 3)
        #expect(upgraded.daysRecomputed.count >= 6)
        let format = try #require(
            try connection.scalar("SELECT min(hex(substr(partial, 1, 1))) FROM report_day_partials")?.string)
        #expect(format == String(format: "%02X", DayPartial.format))
    }

    @Test func theDayScanReadsTheColumnsOfTheFullScan() {
        // The day scan is the full scan restricted to one day: same columns, same order.
        #expect(DayPartial.daySQL.hasPrefix(PresentationScan.scanSQL + " WHERE first_at >= ?1 AND first_at < ?2"))
    }

    @Test func aPartialSurvivesEncodingExactly() throws {
        // Given the partial of a day with every kind of presentation (the hand-built fixture's 2026-11-01)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportFixture.makeStore(at: folder.path("db"))
        try FunnelReport(connection: connection, now: .constant(0)).refreshRollups()
        let partial = try connection.withDatabase { db in
            try DayPartial.scan(db, startMs: ReportFixture.day1, endMs: ReportFixture.day2)
        }
        #expect(
            !partial.groups.isEmpty && !partial.firsts.isEmpty && !partial.purchases.isEmpty
                && !partial.products.isEmpty
                && !partial.offerings.isEmpty)
        // When it is encoded and decoded; Then it is the same value, and damaged bytes are refused
        let bytes = partial.encoded()
        #expect(bytes.withUnsafeBytes { DayPartial(decoding: $0) } == partial)
        #expect(Array(bytes.dropLast()).withUnsafeBytes { DayPartial(decoding: $0) } == nil)
        #expect((bytes + [0]).withUnsafeBytes { DayPartial(decoding: $0) } == nil)
        #expect(([DayPartial.format + 1] + bytes.dropFirst()).withUnsafeBytes { DayPartial(decoding: $0) } == nil)
    }
}
