import Foundation
import PaywallCore
import PaywallSQLite
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// `revenue.csv`, the offering comparison's money and sequential columns and data quality's
/// subscription counts (funnels.md "Revenue") on hand-built paywall and subscription events whose
/// every number is worked out by hand below; both engines and the nightly job agree.
struct RevenueReportTests {
    static let d1 = ReportFixture.day1, h = ReportFixture.hour, minute: Int64 = 60_000

    static let presentations: [ReportFixture.Event] = [
        // at "pw", 2026-11-01 unless said: offering "a" for P300, P302, P303, P306; "b" for P301, P304, P305
        ReportFixture.shown(0x300, d1 + 1 * h, "u20", 300, "pw", offering: "a"),
        ReportFixture.closed(0x301, d1 + 1 * h + 5000, "u20", 300, "pw", "purchased", "auto", 5, product: "pro"),
        ReportFixture.shown(0x302, d1 + 2 * h, "u20", 301, "pw", offering: "b"),
        ReportFixture.shown(0x303, d1 + 3 * h, "anon21", 302, "pw", offering: "a"),
        ReportFixture.shown(0x304, d1 + 26 * h, "u22", 303, "pw", offering: "a"),  // 2026-11-02
        ReportFixture.shown(0x305, d1 + 5 * h, "u23", 304, "pw", offering: "b"),
        ReportFixture.shown(0x306, d1 + 6 * h, "u24", 305, "pw", offering: "b"),
        ReportFixture.shown(0x307, d1 + 7 * h, "u25", 306, "pw", offering: "a"),
    ]

    typealias Sub = SubscriptionFixture.Event
    static let subscriptions: [Sub] = [
        // T1: u20's trial, 60 s after P301's impression (P300's is earlier: the latest one wins) → P301 (b);
        // converted by the renewal on day 4 ($9.99, proceeds $8.485: half to even gives 8.48)
        Sub(
            id: "e1", type: "INITIAL_PURCHASE", transaction: "T1", at: d1 + 2 * h + minute, user: "u20",
            period: "TRIAL", purchasedAt: d1 + 2 * h + minute, expirationAt: d1 + 74 * h, price: 0, proceeds: 0),
        Sub(
            id: "e2", type: "RENEWAL", transaction: "T1", at: d1 + 74 * h, user: "u20", purchasedAt: d1 + 74 * h,
            trialConversion: true, price: 9_990_000, proceeds: 8_485_000),
        // T2: bought as u21 whose original id anon21 saw P302 (a): a trial that lapsed (expired before as-of)
        Sub(
            id: "e3", type: "INITIAL_PURCHASE", transaction: "T2", at: d1 + 3 * h + minute, user: "u21",
            originalUser: "anon21", period: "TRIAL", purchasedAt: d1 + 3 * h + minute,
            expirationAt: d1 + 75 * h + minute, price: 0),
        // T3: u22 bought 4 minutes before P303's impression (clock skew within 5 minutes) → P303 (a, day 2)
        Sub(
            id: "e4", type: "INITIAL_PURCHASE", transaction: "T3", at: d1 + 26 * h - 4 * minute, user: "u22",
            purchasedAt: d1 + 26 * h - 4 * minute, price: 4_990_000, proceeds: 4_241_500),
        // T4: u23 bought 6 minutes before P304's impression: outside the skew, unattributed
        Sub(
            id: "e5", type: "INITIAL_PURCHASE", transaction: "T4", at: d1 + 5 * h - 6 * minute, user: "u23",
            purchasedAt: d1 + 5 * h - 6 * minute, price: 4_990_000),
        // T5: u24 bought exactly 72 h after P305's impression → P305 (b); refunded in full
        Sub(
            id: "e6", type: "INITIAL_PURCHASE", transaction: "T5", at: d1 + 78 * h, user: "u24",
            purchasedAt: d1 + 78 * h, price: 59_990_000, proceeds: 50_991_500),
        Sub(
            id: "e7", type: "CANCELLATION", transaction: "T5", at: d1 + 80 * h, user: "u24", price: -59_990_000,
            proceeds: -50_991_500),
        // T6: u25 bought 72 h + 1 ms after P306's impression: unattributed
        Sub(
            id: "e8", type: "INITIAL_PURCHASE", transaction: "T6", at: d1 + 79 * h + 1, user: "u25",
            purchasedAt: d1 + 79 * h + 1, price: 4_990_000),
        // T7: u25's trial → P306 (a); it expires after as-of (day 4, 80 h: e7) but before the run's time: pending
        Sub(
            id: "e9", type: "INITIAL_PURCHASE", transaction: "T7", at: d1 + 7 * h + 30 * minute, user: "u25",
            period: "TRIAL", purchasedAt: d1 + 7 * h + 30 * minute, expirationAt: d1 + 85 * h, price: 0),
        // sandbox and TEST: counted only in data quality (day 1 and day 2)
        Sub(
            id: "s1", type: "INITIAL_PURCHASE", transaction: "T8", at: d1 + 1 * h + 2 * minute, user: "u20",
            environment: "SANDBOX", purchasedAt: d1 + 1 * h + 2 * minute, price: 9_990_000),
        Sub(id: "s2", type: "TEST", transaction: nil, at: d1 + 26 * h, user: "u20"),
        // a RevenueCat sample TRANSFER stamped in the year 4466: must not move as-of
        Sub(id: "f1", type: "TRANSFER", transaction: nil, at: 78_767_000_000_000, user: "u99"),
    ]

    static func store(_ folder: TemporaryDirectory) throws -> Connection {
        let connection = try SubscriptionFixture.openStore(path: folder.path("db"))
        try ReportFixture.insert(presentations, into: connection)
        try SubscriptionFixture.insert(subscriptions, into: connection)
        return connection
    }

    static func csv(_ directory: String, _ file: String) throws -> [[String]] {
        try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            .components(separatedBy: "\r\n").filter { !$0.isEmpty }.map { $0.components(separatedBy: ",") }
    }

    @Test func moneyIsRoundedHalfToEvenFromExactMicros() {
        #expect(ReportMoney.format(micros: 8_485_000, places: 2) == "8.48")
        #expect(ReportMoney.format(micros: 8_495_000, places: 2) == "8.50")
        #expect(ReportMoney.format(micros: 8_485_001, places: 2) == "8.49")
        #expect(ReportMoney.format(micros: -8_485_000, places: 2) == "-8.48")
        #expect(ReportMoney.format(micros: -4_000, places: 2) == "0.00")
        #expect(ReportMoney.format(micros: 0, places: 2) == "0.00")
        #expect(ReportMoney.format(micros: 9_990_000, per: 6, places: 4) == "1.6650")
        // 1/3 of a cent, and 0.00005 exactly between (half to even: down to 0.0000, up to 0.0002)
        #expect(ReportMoney.format(micros: 10_000, per: 3, places: 4) == "0.0033")
        #expect(ReportMoney.format(micros: 50, places: 4) == "0.0000")
        #expect(ReportMoney.format(micros: 150, places: 4) == "0.0002")
        #expect(ReportMoney.format(micros: 123_456_789_000_000, places: 2) == "123456789.00")
    }

    @Test(arguments: ReportEngine.allCases)
    func theHandWorkedNumbers(_ engine: ReportEngine) throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        var reports = FunnelReport(connection: try Self.store(folder), now: .constant(ReportFixture.day5))
        reports.engine = engine
        try reports.report(
            from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"), into: folder.path("out"))
        let out = folder.path("out")
        #expect(
            try Self.csv(out, "revenue.csv") == [
                [
                    "date", "placement", "impressions", "paid_starts", "trial_starts", "trial_conversions",
                    "trials_pending", "trial_conversion_rate", "refunds", "revenue_usd", "proceeds_usd",
                    "revenue_per_impression",
                ],
                // T1 (converted), T2 (lapsed), T7 (pending): 1 of 2 decided; T5 paid and refunded
                ["2026-11-01", "pw", "6", "1", "3", "1", "1", "0.5000", "1", "9.99", "8.48", "1.6650"],
                ["2026-11-02", "pw", "1", "1", "0", "0", "0", "", "0", "4.99", "4.24", "4.9900"],
            ])
        let offerings = try Self.csv(out, "offering_comparison.csv")
        #expect(
            Array(offerings[0].dropFirst(11)) == [
                "paid_starts", "trial_starts", "revenue_usd", "revenue_per_customer", "rpc_ci_low", "rpc_ci_high",
                "revenue_p_value", "diff", "seq_ci_low", "seq_ci_high", "seq_p_value", "srm_p_value",
            ])
        // a: u20 $0, anon21 $0, u22 $4.99, u25 $0; b: u20 $9.99, u23 $0, u24 $0 (refunded)
        // (intervals and p-values computed independently with Python's statistics module)
        #expect(
            offerings.dropFirst().map { Array($0[0...2]) + Array($0.dropFirst(11)) } == [
                [
                    "pw", "a", "4", "1", "2", "4.99", "1.2475", "-1.1976", "3.6926", "", "", "", "", "", "0.7055",
                ],
                [
                    "pw", "b", "3", "1", "1", "9.99", "3.3300", "-3.1967", "9.8567", "0.5581", "-0.2500", "-2.6154",
                    "2.1154", "0.9923", "0.7055",
                ],
            ])
        let quality = try Self.csv(out, "data_quality.csv")
        #expect(
            Array(quality[0].suffix(3)) == [
                "subscription_events", "subscription_events_unattributed", "subscription_events_sandbox",
            ])
        // day 1: e1, e3, e5 (T4, unattributed), e9; sandbox s1. day 2: e4; TEST s2.
        // day 4 (no paywall events): e2, e6, e8 (T6, unattributed), e7.
        #expect(
            quality.dropFirst().map { [$0[0]] + Array($0.suffix(3)) } == [
                ["2026-11-01", "4", "1", "1"], ["2026-11-02", "1", "0", "1"], ["2026-11-04", "4", "1", "0"],
            ])
        #expect(quality[3] == ["2026-11-04", "0", "0", "0", "0", "0", "0", "0", "0", "0", "4", "1", "0"])
    }

    @Test func asOfIgnoresEventsAfterTheRunsTime() throws {
        // When the run's time is before e7 (80 h): as-of is e8's 79 h + 1 ms, and T2 (expiring at 75 h + 1 min)
        // is still lapsed while T7 stays pending; when it is before T2's expiry (at 75 h), T2 is pending too.
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try Self.store(folder)
        for (now, pending) in [(Self.d1 + 79 * Self.h + 30 * Self.minute, "1"), (Self.d1 + 75 * Self.h, "2")] {
            let reports = FunnelReport(connection: connection, now: .constant(now))
            try reports.report(
                from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-01"), into: folder.path("out"))
            let row = try Self.csv(folder.path("out"), "revenue.csv")[1]
            #expect(row[6] == pending, "now \(now): \(row)")
        }
    }

    @Test func aStoreWithoutSubscriptionTablesReportsNoMoney() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportSchema.open(path: folder.path("db"))
        try ReportFixture.insert(Self.presentations, into: connection)
        #expect(try !connection.transaction(.deferred) { try SubscriptionAttribution.tablesExist($0) })
        let reports = FunnelReport(connection: connection, now: .constant(ReportFixture.day5))
        try reports.report(
            from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"), into: folder.path("out"))
        let revenue = try Self.csv(folder.path("out"), "revenue.csv")
        #expect(
            revenue.dropFirst().map { Array($0[3...]) } == [
                ["0", "0", "0", "0", "", "0", "0.00", "0.00", "0.0000"],
                ["0", "0", "0", "0", "", "0", "0.00", "0.00", "0.0000"],
            ])
    }

    @Test func theNightlyJobFoldsLateSubscriptionEventsLikeAFullRecompute() throws {
        // Given the paywall events and only the first starts, a nightly run; then later runs each
        // bring late subscription events (a renewal days after its paywall day, a late start that
        // takes a subscription to a later presentation, a refund)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try SubscriptionFixture.openStore(path: folder.path("db"))
        try ReportFixture.insert(Self.presentations, into: connection)
        let batches: [[Sub]] = [
            Array(Self.subscriptions[0..<1]), Array(Self.subscriptions[1..<5]), Array(Self.subscriptions[5...]),
            [
                // a late start of T1 with an earlier purchase time becomes T1's start: T1 moves to P300 (a)
                Sub(
                    id: "late", type: "INITIAL_PURCHASE", transaction: "T1", at: Self.d1 + 1 * Self.h + Self.minute,
                    user: "u20", period: "NORMAL", purchasedAt: Self.d1 + 1 * Self.h + Self.minute, price: 1_990_000),
                // a renewal 30 days after T3's paywall day
                Sub(
                    id: "r30", type: "RENEWAL", transaction: "T3", at: Self.d1 + 30 * 24 * Self.h, user: "u22",
                    price: 4_990_000, proceeds: 4_241_500),
            ],
        ]
        var previous: [String: String] = [:]
        for (run, batch) in batches.enumerated() {
            try SubscriptionFixture.insert(batch, into: connection)
            let now = Self.d1 + Int64(5 + run) * 24 * Self.h
            let nightly = FunnelReport(connection: connection, now: .constant(now))
            try nightly.nightly(into: folder.path("nightly"), days: 10, version: "")
            let full = FunnelReport(connection: connection, now: .constant(now))
            try full.report(
                from: try ReportDate("2026-10-01"), to: ReportDate(year: 2026, month: 11, day: 5 + run),
                into: folder.path("full"))
            var files: [String: String] = [:]
            for file in ["revenue.csv", "offering_comparison.csv"] {
                let fromNightly = try String(contentsOfFile: folder.path("nightly/" + file), encoding: .utf8)
                let fromFull = try String(contentsOfFile: folder.path("full/" + file), encoding: .utf8)
                #expect(
                    fromNightly == fromFull,
                    "run \(run): \(file)\n\(unifiedDiff(expected: fromFull, actual: fromNightly))")
                files[file] = fromNightly
            }
            // the subscription events changed the money every run
            #expect(files != previous, "run \(run)")
            previous = files
        }
        // the late start re-attributed T1 to P300 (a): a's revenue is T1's $1.99 + $9.99 and T3's two $4.99
        let offerings = try Self.csv(folder.path("nightly"), "offering_comparison.csv")
        #expect(offerings[1][0...1] == ["pw", "a"] && offerings[1][13] == "21.96")
        #expect(offerings[2][0...1] == ["pw", "b"] && offerings[2][13] == "0.00")
    }
}
