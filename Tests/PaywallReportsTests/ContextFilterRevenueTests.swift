import Foundation
import PaywallCore
import PaywallSQLite
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// `--platform` / `--app-version` and the money: a filtered report's `revenue.csv` and offering
/// comparison equal those of a store holding only the matching presentations (and every subscription
/// event), with either engine, and the two engines agree on the filtered report. The buyers here saw
/// paywalls on several platforms, so the presentation a purchase is attributed to depends on the filter.
struct ContextFilterRevenueTests {
    static let d1 = ReportFixture.day1, h = ReportFixture.hour, minute: Int64 = 60_000

    /// One presentation: a `paywall_shown` whose context is `platform` (`nil`: not stated).
    static func shown(_ pw: Int, _ at: Int64, _ user: String, _ offering: String, _ platform: String?)
        -> ReportFixture.Event
    {
        var event = ReportFixture.shown(pw, at, user, pw, "pw", offering: offering)
        event.platform = platform
        event.appVersion = platform.map { _ in "1.0" }
        return event
    }

    static let presentations: [ReportFixture.Event] = [
        shown(0x400, d1 + 1 * h, "u30", "a", "ios"),
        shown(0x401, d1 + 2 * h, "u30", "b", "android"),
        shown(0x402, d1 + 3 * h, "u31", "b", "android"),
        shown(0x403, d1 + 4 * h, "u32", "a", "ios"),
        shown(0x404, d1 + 5 * h, "u33", "a", "android"),
        shown(0x405, d1 + 6 * h, "u33", "b", "ios"),
        shown(0x406, d1 + 8 * h, "u34", "a", nil),
        shown(0x407, d1 + 26 * h, "u35", "b", "ios"),
    ]

    typealias Sub = SubscriptionFixture.Event
    static let subscriptions: [Sub] = [
        // T1: u30 saw ios (a) then android (b): the whole store attributes it to android, an ios-only one to ios
        Sub(
            id: "m1", type: "INITIAL_PURCHASE", transaction: "T1", at: d1 + 2 * h + minute, user: "u30",
            purchasedAt: d1 + 2 * h + minute, price: 9_990_000, proceeds: 8_491_500),
        // T2: u31 saw only android: unattributed when only ios is kept; a lapsed trial
        Sub(
            id: "m2", type: "INITIAL_PURCHASE", transaction: "T2", at: d1 + 3 * h + minute, user: "u31",
            period: "TRIAL", purchasedAt: d1 + 3 * h + minute, expirationAt: d1 + 75 * h, price: 0),
        // T3: u32 on ios, refunded on day 2
        Sub(
            id: "m3", type: "INITIAL_PURCHASE", transaction: "T3", at: d1 + 4 * h + minute, user: "u32",
            purchasedAt: d1 + 4 * h + minute, price: 4_990_000, proceeds: 4_241_500),
        Sub(
            id: "m4", type: "CANCELLATION", transaction: "T3", at: d1 + 30 * h, user: "u32", price: -4_990_000,
            proceeds: -4_241_500),
        // T4: u33 saw android (a) then ios (b): a trial converted on day 4
        Sub(
            id: "m5", type: "INITIAL_PURCHASE", transaction: "T4", at: d1 + 6 * h + minute, user: "u33",
            period: "TRIAL", purchasedAt: d1 + 6 * h + minute, expirationAt: d1 + 78 * h, price: 0),
        Sub(
            id: "m6", type: "RENEWAL", transaction: "T4", at: d1 + 78 * h, user: "u33", purchasedAt: d1 + 78 * h,
            trialConversion: true, price: 19_990_000, proceeds: 16_991_500),
        // T5: u34's only presentation states no platform
        Sub(
            id: "m7", type: "INITIAL_PURCHASE", transaction: "T5", at: d1 + 8 * h + minute, user: "u34",
            purchasedAt: d1 + 8 * h + minute, price: 2_990_000, proceeds: 2_541_500),
    ]

    /// The filters, each with the platforms of the presentations it keeps.
    static let cases: [(ContextFilter, Set<String?>)] = [
        (ContextFilter(platforms: ["ios"]), ["ios"]),
        (ContextFilter(platforms: ["android"]), ["android"]),
        (ContextFilter(platforms: [""]), [nil]),
        (ContextFilter(appVersions: ["1.0"]), ["ios", "android"]),
    ]

    static func store(at path: String, presentations: [ReportFixture.Event]) throws -> Connection {
        let connection = try SubscriptionFixture.openStore(path: path)
        try ReportFixture.insert(presentations, into: connection)
        try SubscriptionFixture.insert(subscriptions, into: connection)
        return connection
    }

    func csv(_ folder: String, _ file: String) throws -> String {
        try String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8)
    }

    @Test(arguments: 0..<cases.count)
    func theMoneyOfAFilteredReportIsThatOfAStoreHoldingOnlyTheMatchingPresentations(_ index: Int) throws {
        let (filter, platforms) = Self.cases[index]
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given a store whose buyers saw paywalls on several platforms, and a store holding only the
        // matching presentations and the same subscription events
        let all = try Self.store(at: folder.path("all.sqlite"), presentations: Self.presentations)
        let kept = Self.presentations.filter { platforms.contains($0.platform) }
        let only = try Self.store(at: folder.path("only.sqlite"), presentations: kept)
        let (from, to) = (try ReportDate("2026-11-01"), try ReportDate("2026-11-05"))
        let money = [ReportFile.revenue.fileName, ReportFile.offeringComparison.fileName]
        for engine in ReportEngine.allCases {
            // When the whole store is reported with the filter and without, and the other store without
            var reports = FunnelReport(connection: all, now: .constant(ReportFixture.day5))
            reports.engine = engine
            try reports.report(from: from, to: to, into: folder.path("\(engine)-unfiltered"))
            reports.contextFilter = filter
            try reports.report(from: from, to: to, into: folder.path("\(engine)-filtered"))
            var copy = FunnelReport(connection: only, now: .constant(ReportFixture.day5))
            copy.engine = engine
            try copy.report(from: from, to: to, into: folder.path("\(engine)-copy"))
            // Then the money files equal the other store's, and differ from the unfiltered report's
            for file in money {
                let expected = try csv(folder.path("\(engine)-copy"), file)
                let actual = try csv(folder.path("\(engine)-filtered"), file)
                #expect(actual == expected, "\(engine) \(file)\n\(unifiedDiff(expected: expected, actual: actual))")
            }
            #expect(
                try csv(folder.path("\(engine)-filtered"), ReportFile.revenue.fileName)
                    != csv(folder.path("\(engine)-unfiltered"), ReportFile.revenue.fileName))
            // And so do the page's offering trends (revenue per customer among them, when two offerings are kept)
            let page = try csv(folder.path("\(engine)-filtered"), HTMLReport.fileName)
            let trends = HTMLOfferingTrendsTests.trendTitles(page)
            if Set(kept.compactMap(\.offering)).count > 1 {
                #expect(trends.keys.contains { $0.hasPrefix("Revenue per customer") }, "\(trends.keys.sorted())")
            }
            #expect(
                trends
                    == HTMLOfferingTrendsTests.trendTitles(try csv(folder.path("\(engine)-copy"), HTMLReport.fileName)),
                "\(engine) offering trends")
            // And data quality, about the whole store, stays the unfiltered report's
            let quality = ReportFile.dataQuality.fileName
            let expected = try csv(folder.path("\(engine)-unfiltered"), quality)
            let actual = try csv(folder.path("\(engine)-filtered"), quality)
            #expect(actual == expected, "\(engine) \(quality)\n\(unifiedDiff(expected: expected, actual: actual))")
        }
        // And the two engines write the same filtered report
        for file in ReportFile.all.map(\.fileName) + [HTMLReport.fileName] {
            let native = try csv(folder.path("native-filtered"), file)
            let sql = try csv(folder.path("sql-filtered"), file)
            #expect(native == sql, "\(file)\n\(unifiedDiff(expected: native, actual: sql))")
        }
    }

    @Test func theFilteredMoneyIsTheHandWorkedOne() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let all = try Self.store(at: folder.path("all.sqlite"), presentations: Self.presentations)
        for engine in ReportEngine.allCases {
            var reports = FunnelReport(connection: all, now: .constant(ReportFixture.day5))
            reports.engine = engine
            reports.contextFilter = ContextFilter(platforms: ["ios"])
            try reports.report(
                from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"), into: folder.path("\(engine)"))
            // Only ios: T1 → P400 ($9.99), T3 → P403 ($4.99, refunded), T4 → P405 (trial, converted for
            // $19.99); T2 and T5 have no ios presentation and are unattributed
            #expect(
                try RevenueReportTests.csv(folder.path("\(engine)"), "revenue.csv") == [
                    [
                        "date", "placement", "impressions", "paid_starts", "trial_starts", "trial_conversions",
                        "trials_pending", "trial_conversion_rate", "refunds", "revenue_usd", "proceeds_usd",
                        "revenue_per_impression",
                    ],
                    ["2026-11-01", "pw", "3", "2", "1", "1", "0", "1.0000", "1", "29.98", "25.48", "9.9933"],
                    ["2026-11-02", "pw", "1", "0", "0", "0", "0", "", "0", "0.00", "0.00", "0.0000"],
                ], "\(engine)")
        }
    }
}
