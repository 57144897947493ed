import Foundation
import PaywallCore
import PaywallSQLite
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// The cases the streamed subscription read (``SubscriptionReads``) has to get right beyond those of
/// the revenue reports' tests: a subscription's events stored between another's, ties broken by
/// `id` and by `pw_id`, a purchase without a purchase time, a subscription without a start, and a
/// start whose two customer keys are two report customers. Every expected value is worked out by
/// hand in the comments.
struct SubscriptionReadsTests {
    static let d1 = ReportFixture.day1, h = ReportFixture.hour, minute: Int64 = 60_000
    typealias Sub = SubscriptionFixture.Event

    static let presentations: [ReportFixture.Event] = [
        ReportFixture.shown(0x500, d1 + 1 * h, "u1", 0x400, "pw", offering: "a"),
        ReportFixture.shown(0x501, d1 + 2 * h, "u2", 0x401, "pw", offering: "a"),
        // u3: two impressions at the same instant: the larger pw_id (0x403, offering "b") wins
        ReportFixture.shown(0x503, d1 + 3 * h, "u3", 0x403, "pw", offering: "b"),
        ReportFixture.shown(0x502, d1 + 3 * h, "u3", 0x402, "pw", offering: "a"),
        ReportFixture.shown(0x504, d1 + 4 * h, "u4", 0x404, "pw", offering: "a"),
        // anon5 (u5's earlier anonymous id) saw "onboarding" later than u5 saw "pw": the later one wins
        ReportFixture.shown(0x505, d1 + 5 * h, "u5", 0x405, "pw", offering: "a"),
        ReportFixture.shown(0x506, d1 + 6 * h, "anon5", 0x406, "onboarding", offering: "b"),
    ]

    static let subscriptions: [Sub] = [
        // T1 and T2 stored interleaved: T1's start, T2's start, T1's renewal, T2's renewal
        Sub(
            id: "t1-start", type: "INITIAL_PURCHASE", transaction: "T1", at: d1 + 1 * h + minute, user: "u1",
            purchasedAt: d1 + 1 * h + minute, price: 1_000_000, proceeds: 700_000),
        Sub(
            id: "t2-start", type: "INITIAL_PURCHASE", transaction: "T2", at: d1 + 2 * h + minute, user: "u2",
            period: "TRIAL", purchasedAt: d1 + 2 * h + minute, expirationAt: d1 + 50 * h, price: 0, proceeds: 0),
        Sub(
            id: "t1-renewal", type: "RENEWAL", transaction: "T1", at: d1 + 30 * h, user: "u1", purchasedAt: d1 + 30 * h,
            trialConversion: false, price: 2_000_000, proceeds: 1_400_000),
        Sub(
            id: "t2-renewal", type: "RENEWAL", transaction: "T2", at: d1 + 50 * h, user: "u2", purchasedAt: d1 + 50 * h,
            trialConversion: true, price: 3_000_000, proceeds: 2_100_000),
        // T3: two purchases at the same time; "b3" stored first, "a3" (smaller id, a trial) is the start
        Sub(
            id: "b3", type: "INITIAL_PURCHASE", transaction: "T3", at: d1 + 3 * h + minute, user: "u3",
            purchasedAt: d1 + 3 * h + minute, price: 4_000_000),
        Sub(
            id: "a3", type: "INITIAL_PURCHASE", transaction: "T3", at: d1 + 3 * h + minute, user: "u3",
            period: "TRIAL", purchasedAt: d1 + 3 * h + minute, expirationAt: d1 + 90 * h, price: 0),
        // T4: a purchase without a purchase time stored first; the timed one is the start
        Sub(id: "t4-untimed", type: "INITIAL_PURCHASE", transaction: "T4", at: d1 + 4 * h, user: "u4", price: 500_000),
        Sub(
            id: "t4-timed", type: "INITIAL_PURCHASE", transaction: "T4", at: d1 + 4 * h + minute, user: "u4",
            purchasedAt: d1 + 4 * h + minute, price: 600_000),
        // T5: bought as u5 with alias anon5: both customers' presentations are candidates
        Sub(
            id: "t5-start", type: "INITIAL_PURCHASE", transaction: "T5", at: d1 + 6 * h + minute, user: "u5",
            aliases: ["anon5"], purchasedAt: d1 + 6 * h + minute, price: 7_000_000, proceeds: 4_900_000),
        // T6: only a purchase without a purchase time: a start that cannot be attributed
        Sub(id: "t6-untimed", type: "INITIAL_PURCHASE", transaction: "T6", at: d1 + 7 * h, user: "u1", price: 800_000),
        // T7: a renewal whose start was never stored: unattributed
        Sub(id: "t7-renewal", type: "RENEWAL", transaction: "T7", at: d1 + 8 * h, user: "u1", price: 900_000),
    ]

    @Test func theStreamedReadFoldsEachSubscriptionAsTheDefinitionsSay() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try SubscriptionFixture.openStore(path: folder.path("db"))
        try ReportFixture.insert(Self.presentations, into: connection)
        try SubscriptionFixture.insert(Self.subscriptions, into: connection)
        _ = try FunnelReport(connection: connection, now: .constant(0)).refreshRollups()
        let nowMs = Self.d1 + 60 * Self.h
        let attribution = try connection.withDatabase { try SubscriptionAttribution.load($0, nowMs: nowMs) }

        // as-of: the latest production stamp not after the run's time (t2-renewal at 50 h)
        #expect(attribution.asOf == Self.d1 + 50 * Self.h)
        let customers = try connection.withDatabase { db in
            Dictionary(
                uniqueKeysWithValues: try db.all("SELECT user_id, key FROM report_customers") {
                    ($0.string(at: 0) ?? "", $0.int64(at: 1))
                })
        }
        typealias S = SubscriptionAttribution.Subscription
        // in start rowid order: T1, T2, T3 (start a3, the 6th row), T4 (t4-timed, the 8th), T5
        #expect(
            attribution.subscriptions == [
                S(
                    firstAt: Self.d1 + 1 * Self.h, placement: "pw", offering: "a", customer: customers["u1"]!,
                    trial: false, converted: false, pending: false, revenueMicros: 3_000_000, proceedsMicros: 2_100_000),
                S(
                    firstAt: Self.d1 + 2 * Self.h, placement: "pw", offering: "a", customer: customers["u2"]!,
                    trial: true, converted: true, pending: false, expirationAt: Self.d1 + 50 * Self.h,
                    revenueMicros: 3_000_000, proceedsMicros: 2_100_000),
                // a3 is a trial expiring at 90 h, after as-of: pending; both purchases are revenue
                S(
                    firstAt: Self.d1 + 3 * Self.h, placement: "pw", offering: "b", customer: customers["u3"]!,
                    trial: true, converted: false, pending: true, expirationAt: Self.d1 + 90 * Self.h,
                    revenueMicros: 4_000_000),
                S(
                    firstAt: Self.d1 + 4 * Self.h, placement: "pw", offering: "a", customer: customers["u4"]!,
                    trial: false, converted: false, pending: false, revenueMicros: 1_100_000),
                S(
                    firstAt: Self.d1 + 6 * Self.h, placement: "onboarding", offering: "b",
                    customer: customers["anon5"]!, trial: false, converted: false, pending: false,
                    revenueMicros: 7_000_000, proceedsMicros: 4_900_000),
            ])
        // T6's and T7's events are the unattributed ones; nothing is sandbox
        #expect(attribution.unattributedStamps.sorted() == [Self.d1 + 7 * Self.h, Self.d1 + 8 * Self.h])
        #expect(attribution.productionStamps.count == Self.subscriptions.count)
        #expect(attribution.sandboxStamps.isEmpty)
    }
}
