import Foundation
import PaywallCore
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// A dirty day whose only change is new presentations gets its stored partial plus theirs instead
/// of a rescan; these tests hold that shortcut to the rescan it replaces.
struct AdditivePartialsTests {
    static let utc = try! DayCalendar(timeZone: "UTC")

    /// A store with a nightly run over the random traffic (2026-11-01 … 11-06) behind it, and the
    /// pw number of a stored presentation whose first event is on 2026-11-05.
    func storeAfterANightlyRun(_ folder: TemporaryDirectory) throws -> (Connection, existing: Int) {
        let connection = try EngineAgreementTests.randomStore(at: folder.path("db"), seed: 13)
        try FunnelReport(connection: connection, now: .constant(NightlyPartialsTests.now)).nightly(
            into: folder.path("n0"), version: "t")
        let day5 = try Self.utc.days(from: try ReportDate("2026-11-05"), through: try ReportDate("2026-11-05"))[0]
        let existing = try #require(
            try connection.all(
                """
                SELECT substr(e.pw_id, 25) FROM events AS e WHERE e.occurred_at >= ?1 AND e.occurred_at < ?2 AND NOT EXISTS
                  (SELECT 1 FROM events AS o WHERE o.pw_id = e.pw_id AND o.occurred_at < ?1) LIMIT 1
                """, [.integer(day5.startMs), .integer(day5.endMs)]
            ) { Int($0.string(at: 0) ?? "", radix: 16) }.first ?? nil)
        return (connection, existing)
    }

    /// New presentations on 2026-11-03 (a day with stored ones) and 2026-11-09 (a new day), with pw
    /// ids both above and below the stored ones, each with several events; and a second close for
    /// the stored presentation `existing`, which changes its day (2026-11-05) in place.
    func lateTraffic(_ connection: Connection, existing: Int) throws {
        let h = ReportFixture.hour
        let d3 = ReportFixture.day1 + 50 * h
        let d9 = ReportFixture.day1 + 193 * h
        typealias F = ReportFixture
        try F.insert(
            [
                F.shown(95_001, d3, "u1", 1_500, "onboarding"),
                F.step(95_002, "paywall_plan_selected", d3 + 1_000, "u1", 1_500, "onboarding", "p1"),
                F.closed(95_003, d3 + 4_000, "u1", 1_500, "onboarding", "purchased", "auto", 4.0, product: "p1"),
                F.shown(95_004, d9, "u77", 1_501, "brand new"),
                F.closed(95_005, d9 + 9_000, "u77", 1_501, "brand new", "dismissed", "close_button", 9.0),
                F.closed(
                    95_006, ReportFixture.day1 + 4 * 24 * h + 23 * h, "u3", existing, "a", "restored", "auto", 1.0),
            ], into: connection)
        try F.insert(
            [
                F.shown(95_007, d3 + 60_000, "u2", 3, "settings"),
                F.closed(95_008, d3 + 61_000, "u2", 3, "settings", "dismissed", "continue_free", 1.0),
            ],
            into: connection, pwPrefix: "00000000")
    }

    /// A store after a nightly run with ``lateTraffic(_:existing:)`` stored, not yet folded, and reports
    /// on it that fold `chunk` events per chunk.
    func lateTrafficStore(_ folder: TemporaryDirectory, chunk: Int = Int(Rollup.defaultChunkSize)) throws -> (
        Connection, FunnelReport
    ) {
        let (connection, existing) = try storeAfterANightlyRun(folder)
        try lateTraffic(connection, existing: existing)
        var reports = FunnelReport(connection: connection, now: .constant(NightlyPartialsTests.now))
        reports.chunkSize = Int64(chunk)
        return (connection, reports)
    }

    /// ``lateTraffic(_:existing:)`` on a store after a nightly run, folded with its additions collected.
    func lateTrafficFolded(_ folder: TemporaryDirectory) throws -> (Connection, RollupRefresh) {
        let (connection, reports) = try lateTrafficStore(folder)
        return (connection, try reports.refreshRollups(collectingAdditions: 1_000))
    }

    @Test func onlyDaysWithNothingButNewPresentationsAreAddedToAndTheyEqualARescan() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given a store after a nightly run, and late traffic folded with its additions collected
        let (connection, refreshed) = try lateTrafficFolded(folder)
        let additions = NightlyPartials.Additions(
            collected: try #require(refreshed.additions), markedBefore: [],
            watermarkAfter: refreshed.watermark)
        #expect(additions.collected.folds.count == 3)
        let partials = NightlyPartials(calendar: Self.utc)
        // When the nightly job plans its update
        let plan = try connection.transaction { try partials.plan($0, additions: additions) }
        // Then the two days with only new presentations are additive, the changed day is rescanned
        #expect(plan.additive == [try ReportDate("2026-11-03"), try ReportDate("2026-11-09")])
        #expect(plan.days.contains(try ReportDate("2026-11-05")))
        // And after the update each additive day's stored partial equals a rescan of the day
        _ = try connection.transaction { try partials.update($0, plan: plan) }
        for date in ["2026-11-03", "2026-11-09"] {
            let day = try Self.utc.days(from: try ReportDate(date), through: try ReportDate(date))[0]
            let stored = try connection.withDatabase { try NightlyPartials.stored($0, day) }
            let rescanned = try connection.withDatabase {
                try DayPartial.scan($0, startMs: day.startMs, endMs: day.endMs)
            }
            #expect(stored == rescanned, "\(date)")
            #expect(stored?.isEmpty == false)
        }
    }

    @Test(arguments: [1, 2, 3])
    func aPresentationWhoseEventsFallInTwoChunksOfOneRefreshStaysAnAddition(_ chunk: Int) throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given a store after a nightly run, and late traffic folded in chunks of `chunk` events, so
        // that the new presentations' events fall in several chunks of the same refresh
        let (connection, reports) = try lateTrafficStore(folder, chunk: chunk)
        let refreshed = try reports.refreshRollups(collectingAdditions: 1_000)
        let collected = try #require(refreshed.additions)
        // Then each new presentation is one whole fold, and only the stored one changed
        #expect(collected.folds.count == 3)
        #expect(Set(collected.folds.map(\.pwID)).count == 3)
        let changedDays = Set(collected.changedBuckets.map { Self.utc.date(containing: $0 * 900_000) })
        #expect(changedDays == [try ReportDate("2026-11-05")])
        // And the days with only new presentations are additive, and equal a rescan after the update
        let partials = NightlyPartials(calendar: Self.utc)
        let additions = NightlyPartials.Additions(
            collected: collected, markedBefore: [], watermarkAfter: refreshed.watermark)
        let plan = try connection.transaction { try partials.plan($0, additions: additions) }
        #expect(plan.additive == [try ReportDate("2026-11-03"), try ReportDate("2026-11-09")])
        _ = try connection.transaction { try partials.update($0, plan: plan) }
        for date in ["2026-11-03", "2026-11-09"] {
            let day = try Self.utc.days(from: try ReportDate(date), through: try ReportDate(date))[0]
            let stored = try connection.withDatabase { try NightlyPartials.stored($0, day) }
            let rescanned = try connection.withDatabase {
                try DayPartial.scan($0, startMs: day.startMs, endMs: day.endMs)
            }
            #expect(stored == rescanned, "\(date)")
        }
    }

    @Test func anAdditiveDayWhoseStoredPartialCannotBeReadIsRescanned() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given the late traffic folded with its additions, and the stored partial of 2026-11-03 damaged
        let (connection, refreshed) = try lateTrafficFolded(folder)
        let day3 = try Self.utc.days(from: try ReportDate("2026-11-03"), through: try ReportDate("2026-11-03"))[0]
        try connection.run(
            "UPDATE report_day_partials SET partial = x'01ff' WHERE day_start = ?", [.integer(day3.startMs)])
        let additions = NightlyPartials.Additions(
            collected: try #require(refreshed.additions), markedBefore: [],
            watermarkAfter: refreshed.watermark)
        let partials = NightlyPartials(calendar: Self.utc)
        // When the plan marks the day additive and the update runs
        let plan = try connection.transaction { try partials.plan($0, additions: additions) }
        #expect(plan.additive.contains(day3.date))
        _ = try connection.transaction { try partials.update($0, plan: plan) }
        // Then the day was rescanned instead: its partial is readable again and equals a rescan
        let stored = try connection.withDatabase { try NightlyPartials.stored($0, day3) }
        let rescanned = try connection.withDatabase {
            try DayPartial.scan($0, startMs: day3.startMs, endMs: day3.endMs)
        }
        #expect(stored == rescanned)
    }

    @Test func additionsAreNotUsedWhenAnotherFoldMovedTheWatermarkOrTheDayWasMarkedBefore() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let (connection, refreshed) = try lateTrafficFolded(folder)
        let collected = try #require(refreshed.additions)
        let partials = NightlyPartials(calendar: Self.utc)
        // When the watermark the additions end at is not the stored one (another fold ran since)
        let moved = NightlyPartials.Additions(
            collected: collected, markedBefore: [], watermarkAfter: refreshed.watermark - 1)
        // Then no day is additive
        #expect(try connection.transaction { try partials.plan($0, additions: moved) }.additive.isEmpty)
        // And a day already marked before the refresh is rescanned
        let marked = NightlyPartials.Additions(
            collected: collected, markedBefore: [(ReportFixture.day1 + 193 * ReportFixture.hour) / 900_000],
            watermarkAfter: refreshed.watermark)
        #expect(
            try connection.transaction { try partials.plan($0, additions: marked) }.additive == [
                try ReportDate("2026-11-03")
            ])
        // And with too many new presentations to keep, none are collected
        try ReportFixture.insert(
            [
                ReportFixture.shown(96_001, ReportFixture.day1 + 3, "u1", 1_600, "a"),
                ReportFixture.shown(96_002, ReportFixture.day1 + 4, "u1", 1_601, "a"),
            ], into: connection)
        #expect(
            try FunnelReport(connection: connection, now: .constant(0)).refreshRollups(collectingAdditions: 1).additions
                == nil)
    }

    @Test(arguments: [1, 3, 100_000])
    func theNightlyJobWithAdditionsEqualsTheFullScanWhateverTheChunks(_ chunk: Int) throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given a store after a nightly run and late traffic, folded in chunks of `chunk` events
        // (a presentation whose events span chunks is new in one and changed in the next)
        let (connection, reports) = try lateTrafficStore(folder, chunk: chunk)
        let run = try reports.nightly(into: folder.path("nightly"), version: "t")
        // Then every CSV equals a from-scratch full scan of the same window
        try FunnelReport(connection: connection, now: .constant(NightlyPartialsTests.now))
            .report(from: try ReportDate(run.windowFrom), to: try ReportDate(run.windowTo), into: folder.path("scan"))
        for file in ReportFile.all.map(\.fileName) {
            let expected = try String(contentsOfFile: folder.path("scan") + "/" + file, encoding: .utf8)
            #expect(
                try String(contentsOfFile: folder.path("nightly") + "/" + file, encoding: .utf8) == expected, "\(file)")
        }
        // and the page's offering trends are the full scan's, point for point
        let trends = HTMLOfferingTrendsTests.trendTitles(
            try String(contentsOfFile: folder.path("nightly/report.html"), encoding: .utf8))
        #expect(!trends.isEmpty)
        #expect(
            trends
                == HTMLOfferingTrendsTests.trendTitles(
                    try String(contentsOfFile: folder.path("scan/report.html"), encoding: .utf8)))
        #expect(run.daysRecomputed == ["2026-11-03", "2026-11-05", "2026-11-09"])
    }

    @Test func mergingThePartialsOfTwoHalvesEqualsThePartialOfAll() {
        // Given random presentations of one day, split at random into two sets
        var random = SeededGenerator(seed: 17)
        var all = DayPartial.Builder()
        var first = DayPartial.Builder()
        var second = DayPartial.Builder()
        for _ in 0..<3_000 {
            let at = Int64(random.below(86_400_000))
            let closed = random.below(4) != 0
            let p = PresentationScan.ScannedPresentation(
                firstAt: at, placement: random.below(5), user: UInt32(random.below(300)),
                impressionAt: random.below(5) == 0 ? nil : at + Int64(random.below(5_000)),
                closeAt: closed ? at + Int64(random.below(90_000)) : nil,
                result: closed ? CloseResult.allCases[random.below(CloseResult.allCases.count)] : nil)
            let details = TestDetails(
                planSelected: random.below(2) == 0, purchaseStarted: random.below(3) == 0,
                openS: Double(random.below(60_000)) / 1000, product: "p\(random.below(3))",
                via: [CloseVia.closeButton, .continueFree, .gesture, .abandoned][random.below(4)],
                offering: ["", "a", "b"][random.below(3)], platform: ["", "ios", "android"][random.below(3)],
                appVersion: ["", "1.0", "2.0"][random.below(3)])
            all.add(p, details)
            if random.below(2) == 0 { first.add(p, details) } else { second.add(p, details) }
        }
        // When the two halves' partials are merged; Then they equal the partial of all of them
        let whole = all.finish()
        #expect(first.finish().merging(second.finish()) == whole)
        #expect(whole.segments.count > 20, "segments of every (placement, platform, app version)")
        // And the stored form reads back as it was, segments included
        let bytes = whole.encoded()
        #expect(bytes.withUnsafeBytes { DayPartial(decoding: $0) } == whole)
    }

    struct TestDetails: PresentationDetails {
        var planSelected: Bool
        var purchaseStarted: Bool
        var openS: Double
        var product: String
        var via: CloseVia?
        var offering: String
        var platform: String
        var appVersion: String

        func withOffering<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
            var offering = offering
            return offering.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
    }
}

/// ``FoldRuns``: the refresh's new presentations kept as their chunks' arrays, read as one collection.
struct FoldRunsTests {
    static func fold(_ n: UInt64) -> PresentationFold {
        PresentationFold(
            pwID: UUIDKey(high: 0, low: n), firstAt: Int64(n), firstID: .zero, placementKey: 0, customerKey: Int64(n))
    }

    @Test func runsReadAsOneCollectionInOrderAndAMergeChangesOnlyTheCollection() {
        // Given a batch's folds, all new (kept whole), then two single folds, then the tail of another batch
        let first = (0..<5).map { Self.fold($0) }
        let second = (7..<12).map { Self.fold($0) }
        var runs = FoldRuns()
        runs.append(first, from: 0)
        runs.append(Self.fold(5))
        runs.append(Self.fold(6))
        runs.append(second, from: 0)
        runs.append(second, from: 2)  // a batch whose first folds were stored already
        runs.append(second, from: 5)  // nothing new: no run
        // Then it reads as the folds in the order they came, by index and by iteration
        let expected = (0..<12).map { Self.fold($0) } + (9..<12).map { Self.fold($0) }
        #expect(runs.count == expected.count)
        #expect(Array(runs) == expected)
        #expect(runs.indices.map { runs[$0] } == expected)
        // When a fold is changed through the collection (an earlier chunk's, merged with a later one's)
        runs[3].closeAt = 99
        runs[9].closeAt = 98
        // Then the collection holds the change and the batches' own arrays do not
        #expect(runs[3].closeAt == 99 && runs[9].closeAt == 98)
        #expect(first[3].closeAt == nil && second[2].closeAt == nil)
        #expect(runs.filter { $0.closeAt != nil }.count == 2)
        #expect(FoldRuns().isEmpty && runs != FoldRuns())
    }
}

/// ``AdditivePartialsBuild``: the nightly's new presentations' day partials built on a second thread.
struct AdditivePartialsBuildTests {
    static let day: Int64 = 86_400_000

    @Test func theBuiltPartialsAreTheUpdatesOwnForEveryDayAndOnlyThoseDays() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given late traffic folded with its additions collected (new presentations on two days)
        let (_, refreshed) = try AdditivePartialsTests().lateTrafficFolded(folder)
        let additions = try #require(refreshed.additions)
        let calendar = AdditivePartialsTests.utc
        // When their partials are built on the second thread
        let build = AdditivePartialsBuild(additions, calendar: calendar)
        // Then each day a new presentation starts on gets exactly the partial the update builds itself
        for date in ["2026-11-03", "2026-11-09"] {
            let day = try calendar.days(from: try ReportDate(date), through: try ReportDate(date))[0]
            let built = try #require(build.takePartial(startingAt: day.startMs), "\(date)")
            #expect(built == DayPartial.build(additions, startingIn: day), "\(date)")
            #expect(!built.isEmpty)
            // And it is handed over once
            #expect(build.takePartial(startingAt: day.startMs) == nil)
        }
        // And a day nothing new starts on has none
        let other = try calendar.days(from: try ReportDate("2026-11-04"), through: try ReportDate("2026-11-04"))[0]
        #expect(build.takePartial(startingAt: other.startMs) == nil)
    }

    @Test func theDaysOfFoldsInAnyOrderAreEachDayOnceInAZoneWithADaylightSavingChange() throws {
        // Given folds on three days around New York's switch to winter time (a 25-hour day), in
        // time order and shuffled (random ids come in any order)
        let calendar = try DayCalendar(timeZone: "America/New_York")
        let dates = ["2026-10-31", "2026-11-01", "2026-11-02"]
        let days = try dates.map { try calendar.days(from: try ReportDate($0), through: try ReportDate($0))[0] }
        #expect(days[1].endMs - days[1].startMs == 25 * 3_600_000)
        var times: [Int64] = []
        for day in days {
            times += [day.startMs, day.startMs + 1, (day.startMs + day.endMs) / 2, day.endMs - 1]
        }
        for ordered in [times, times.shuffled(), times.reversed()] {
            var folds = FoldRuns()
            for (n, at) in ordered.enumerated() {
                var fold = FoldRunsTests.fold(UInt64(n))
                fold.firstAt = at
                folds.append(fold)
            }
            // Then each day is found once, with the calendar's own bounds
            let found = AdditivePartialsBuild.days(of: folds, calendar)
            #expect(Set(found) == Set(days))
            #expect(found.count == 3)
        }
        #expect(AdditivePartialsBuild.days(of: FoldRuns(), calendar).isEmpty)
    }
}
