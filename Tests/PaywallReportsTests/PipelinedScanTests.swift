import Foundation
import PaywallCore
import PaywallSQLite
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// The scan on two threads (rows decoded on one, added on the other) gives the one-thread scan's
/// reports, whatever the batch size, the range and the filters.
struct PipelinedScanTests {
    /// Every report the scan feeds, after the offering tallies are finished.
    static func rows(_ scan: PresentationScan) -> [[[ReportValue]]] {
        var finished = scan
        finished.offerings.finish()
        return [
            finished.encounterRows(), finished.conversionRows(), finished.summaryRows(), finished.productMixRows(),
            finished.offeringRows(control: nil), finished.offeringRows(control: "B"), finished.segmentRows(),
            finished.offeringTrendRows(), finished.cohortRows(),
        ]
    }

    /// Every key's viewers and `open_s` values, each sorted (the runs' order follows a dictionary's).
    static func lists<Key: Hashable>(_ runs: [Key: ListRuns]) -> [Key: [String]] {
        runs.mapValues { lists in
            [
                lists.viewers.joined().sorted().map(String.init).joined(separator: " "),
                lists.openS.joined().sorted().map { "\($0)" }.joined(separator: " "),
            ]
        }
    }

    @Test(arguments: [
        ("UTC", "2026-11-01", "2026-11-06", [String](), ContextFilter()),
        ("America/New_York", "2026-11-02", "2026-11-04", [], ContextFilter()),
        ("UTC", "2026-11-01", "2026-11-05", ["=x", "Ünï, \"q\""], ContextFilter()),
        ("Asia/Kolkata", "2026-11-01", "2026-11-06", [], ContextFilter(platforms: ["ios", ""])),
        ("UTC", "2026-11-03", "2026-11-06", ["a"], ContextFilter(platforms: ["android"], appVersions: ["3.3.0"])),
    ])
    func theScanOnTwoThreadsEqualsTheScanOnOne(
        _ timezone: String, _ from: String, _ to: String, _ placements: [String], _ filter: ContextFilter
    ) throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try EngineAgreementTests.randomStore(at: folder.path("db"), seed: 5)
        try FunnelReport(connection: connection, now: .constant(0)).refreshRollups()
        let days = try DayCalendar(timeZone: timezone).days(from: try ReportDate(from), through: try ReportDate(to))
        func scan(twoThreads: Bool, batchRows: Int) throws -> PresentationScan {
            var scan = PresentationScan(
                days: days, placementFilter: placements.isEmpty ? nil : Set(placements.map(ExactText.init)),
                windowMs: 36 * 3_600_000, newestEventAt: ReportFixture.day1 + 7 * 86_400_000)
            scan.contextFilter = filter.isEmpty ? nil : filter
            scan.onTwoThreads = twoThreads
            scan.batchRows = batchRows
            try connection.transaction(.deferred) { try scan.scan($0) }
            return scan
        }
        let one = try scan(twoThreads: false, batchRows: 1)
        let expected = Self.rows(one)
        #expect(expected[0].count > 2, "the range has groups")
        #expect(!one.groupRuns.isEmpty && !one.segmentRuns.isEmpty, "the groups have lists")
        for batchRows in [1, 7, 4096] {
            let two = try scan(twoThreads: true, batchRows: batchRows)
            #expect(Self.rows(two) == expected, "batches of \(batchRows)")
            #expect(two.contexts == one.contexts && two.products == one.products)
            #expect(two.offerings.names.names == one.offerings.names.names)
            #expect(two.purchases.map(\.user) == one.purchases.map(\.user))
            #expect(two.purchases.map(\.at) == one.purchases.map(\.at))
            #expect(two.groups == one.groups && two.segments == one.segments)
            #expect(Self.lists(two.groupRuns) == Self.lists(one.groupRuns))
            #expect(Self.lists(two.segmentRuns) == Self.lists(one.segmentRuns))
        }
    }
}
