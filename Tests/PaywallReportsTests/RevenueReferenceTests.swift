import Foundation
import PaywallCore
import PaywallSQLite
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// The revenue numbers against an independent implementation of their definitions
/// (scripts/revenue_check.py: pandas over the store's events and subscription tables, not the
/// report rollups), on a generated store with every case the definitions name: trials converting,
/// lapsing and pending, refunds, renewals long after the paywall day, sandbox and TEST events,
/// anonymous ids identified later (original id and aliases), clock skew inside and outside 5
/// minutes, the 72-hour edge, a far-future TRANSFER, events without a subscription or a start.
struct RevenueReferenceTests {
    typealias Sub = SubscriptionFixture.Event
    static let d1 = ReportFixture.day1, h = ReportFixture.hour, minute: Int64 = 60_000, day: Int64 = 86_400_000

    /// A fixed-seed store: paywall events of 240 customers over 10 days and their subscriptions.
    static func generate() -> (events: [ReportFixture.Event], subscriptions: [Sub]) {
        var random = RevenueStatisticsTests.SplitMix(state: 4466)
        var events: [ReportFixture.Event] = []
        var subscriptions: [Sub] = []
        var id = 0x1000
        var pw = 0x1000
        func next() -> Int {
            id += 1
            return id
        }
        let offsets: [Int64] = [
            -4 * minute, -6 * minute, -5 * minute, 5 * minute + 1, 1 * h, 71 * h, 72 * h, 72 * h + 1, 5 * day,
        ]
        let prices: [Int64] = [4_990_000, 9_990_000, 59_990_000, 1_234_567]
        for customer in 0..<240 {
            let user = "c\(customer)"
            let anonymous = customer % 5 == 0 ? "anon\(customer)" : nil
            var lastShown: Int64?
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                pw += 1
                let placement = ["onboarding", "onboarding", "settings", "home"][Int.random(in: 0..<4, using: &random)]
                let at =
                    d1 + Int64.random(in: 0..<10, using: &random) * day
                    + Int64.random(in: 0..<(day - h), using: &random)
                let offering: String? =
                    switch placement {
                    case "onboarding": Int.random(in: 0..<100, using: &random) < 52 ? "a" : "b"
                    case "settings": Bool.random(using: &random) ? "x" : nil
                    default: nil
                    }
                let who = anonymous ?? user
                if Int.random(in: 0..<10, using: &random) == 0 {  // closed before the dwell time: no impression
                    events.append(
                        ReportFixture.closed(next(), at + 900, who, pw, placement, "dismissed", "close_button", 0.9))
                    continue
                }
                events.append(ReportFixture.shown(next(), at, who, pw, placement, offering: offering))
                lastShown = max(lastShown ?? .min, at)
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<3:
                    events.append(
                        ReportFixture.closed(next(), at + 20_000, who, pw, placement, "purchased", "auto", 20))
                case 3..<8:
                    events.append(
                        ReportFixture.closed(next(), at + 5000, who, pw, placement, "dismissed", "close_button", 5))
                default: break  // unclosed
                }
            }
            guard let shown = lastShown, Int.random(in: 0..<10, using: &random) < 6 else { continue }
            let purchasedAt = shown + offsets[Int.random(in: 0..<offsets.count, using: &random)]
            let trial = Bool.random(using: &random)
            let price = prices[Int.random(in: 0..<prices.count, using: &random)]
            let transaction = "T\(customer)"
            let expiration = purchasedAt + (trial ? 3 * day : 30 * day)
            var start = Sub(
                id: "s\(customer)", type: customer % 17 == 0 ? "NON_RENEWING_PURCHASE" : "INITIAL_PURCHASE",
                transaction: transaction, at: purchasedAt, user: user, period: trial ? "TRIAL" : "NORMAL",
                purchasedAt: purchasedAt, expirationAt: expiration, price: trial ? 0 : price,
                proceeds: trial ? 0 : price * 70 / 100 + 5)
            if let anonymous {
                if customer % 10 == 0 { start.originalUser = anonymous } else { start.aliases = [anonymous] }
            }
            subscriptions.append(start)
            if trial {
                if Int.random(in: 0..<10, using: &random) < 4 {
                    subscriptions.append(
                        Sub(
                            id: "r\(customer)", type: "RENEWAL", transaction: transaction, at: expiration, user: user,
                            purchasedAt: expiration, expirationAt: expiration + 30 * day, trialConversion: true,
                            price: price, proceeds: price * 85 / 100))
                }
            } else {
                for month in 1...Int.random(in: 1...3, using: &random) {  // renewals long after the paywall day
                    let at = purchasedAt + Int64(month) * 30 * day
                    subscriptions.append(
                        Sub(
                            id: "r\(customer)-\(month)", type: "RENEWAL", transaction: transaction, at: at, user: user,
                            purchasedAt: at, expirationAt: at + 30 * day, trialConversion: false, price: price,
                            proceeds: price * 85 / 100))
                }
                if Int.random(in: 0..<10, using: &random) == 0 {
                    subscriptions.append(
                        Sub(
                            id: "x\(customer)", type: "CANCELLATION", transaction: transaction,
                            at: purchasedAt + 2 * day,
                            user: user, price: -price, proceeds: -(price * 70 / 100 + 5)))
                }
            }
            if customer % 7 == 0 {  // sandbox noise: counted only in data quality
                subscriptions.append(
                    Sub(
                        id: "sb\(customer)", type: "INITIAL_PURCHASE", transaction: "SB\(customer)", at: purchasedAt,
                        user: user, environment: "SANDBOX", purchasedAt: purchasedAt, price: price))
            }
            if customer % 13 == 0 {
                subscriptions.append(
                    Sub(id: "t\(customer)", type: "TEST", transaction: nil, at: purchasedAt, user: user))
            }
            if customer % 23 == 0 {  // a start that arrived late, bought earlier: it becomes the start
                subscriptions.append(
                    Sub(
                        id: "early\(customer)", type: "INITIAL_PURCHASE", transaction: transaction,
                        at: purchasedAt - 2 * h, user: user, period: "NORMAL", purchasedAt: purchasedAt - 2 * h,
                        expirationAt: purchasedAt + 30 * day, price: 1_990_000, proceeds: 1_393_000))
            }
        }
        subscriptions += [
            // a RevenueCat sample TRANSFER from the year 4466, an event without environment or transaction,
            // a renewal whose start was never stored, and a purchase by a customer who never saw a paywall
            Sub(id: "far", type: "TRANSFER", transaction: nil, at: 78_767_000_000_000, user: "c1"),
            Sub(
                id: "bare", type: "RENEWAL", transaction: nil, at: d1 + 3 * day, user: "c2", environment: nil,
                price: 4_990_000),
            Sub(id: "orphan", type: "RENEWAL", transaction: "T-none", at: d1 + 4 * day, user: "c3", price: 4_990_000),
            Sub(
                id: "stranger", type: "INITIAL_PURCHASE", transaction: "T-stranger", at: d1 + 5 * day, user: "nobody",
                purchasedAt: d1 + 5 * day, price: 4_990_000),
        ]
        return (events, subscriptions)
    }

    @Test(arguments: ReportEngine.allCases)
    func theReportsEqualAnIndependentImplementationCellForCell(_ engine: ReportEngine) throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let (events, subscriptions) = Self.generate()
        let connection = try SubscriptionFixture.openStore(path: folder.path("db"))
        try ReportFixture.insert(events, into: connection)
        try SubscriptionFixture.insert(subscriptions, into: connection)
        let now = Self.d1 + 12 * Self.day
        var reports = FunnelReport(connection: connection, now: .constant(now))
        reports.engine = engine
        try reports.report(
            from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-10"), into: folder.path("out"))
        let (status, output, errors) = try runPython(
            "revenue_check.py", [folder.path("db"), folder.path("out"), "2026-11-01", "2026-11-10", String(now)])
        #expect(status == 0, "revenue_check.py (\(Python.installAdvice)):\n\(output)\(errors)")
        // the generated store really exercises the definitions: attributed and unattributed subscriptions,
        // pending and decided trials, refunds, and revenue at both compared offerings
        let revenue = try RevenueReportTests.csv(folder.path("out"), "revenue.csv").dropFirst()
        #expect(revenue.map { Int($0[4])! }.reduce(0, +) > 20, "trial starts")
        #expect(revenue.map { Int($0[6])! }.reduce(0, +) > 0, "pending trials")
        #expect(revenue.map { Int($0[5])! }.reduce(0, +) > 0, "converted trials")
        #expect(revenue.map { Int($0[8])! }.reduce(0, +) > 0, "refunds")
        let quality = try RevenueReportTests.csv(folder.path("out"), "data_quality.csv").dropFirst()
        #expect(quality.map { Int($0[11])! }.reduce(0, +) > 10, "unattributed events")
        #expect(quality.map { Int($0[12])! }.reduce(0, +) > 5, "sandbox events")
        #expect(output.contains(" attributed subscriptions"))
    }
}
