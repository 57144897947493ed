import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallSubscriptions
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// The nightly job's subscription state (``SubscriptionState``) in the cases that make it attribute
/// a subscription again: a late presentation of a buyer inside a purchase's window, a customer who
/// bought under an alias and is seen later, a presentation whose first event moves to another day,
/// an erasure, another time zone and a state that disagrees with itself. After every nightly run its
/// money equals a range report's over the same days, which attributes every subscription afresh.
struct SubscriptionStateTests {
    static let d1 = ReportFixture.day1, h = ReportFixture.hour, minute: Int64 = 60_000
    typealias Sub = SubscriptionFixture.Event

    /// The files whose numbers come from the subscription side.
    static let files = ["revenue.csv", "offering_comparison.csv", "data_quality.csv"]

    /// Runs the nightly job at `now` and a range report over its window, and expects the same files.
    @discardableResult
    static func nightlyEqualsFullRecompute(
        _ connection: Connection, _ folder: TemporaryDirectory, now: Int64, timezone: String = "UTC",
        repairs: Int = 0, _ comment: String
    ) throws -> [String: String] {
        let run = try FunnelReport(connection: connection, now: .constant(now))
            .nightly(into: folder.path("nightly"), days: 10, timezone: timezone, version: "")
        try FunnelReport(connection: connection, now: .constant(now)).report(
            from: try ReportDate(run.windowFrom), to: try ReportDate(run.windowTo), timezone: timezone,
            into: folder.path("full"))
        #expect(
            try connection.scalar("SELECT value FROM meta WHERE key = ?", [.text(ReportSchema.subscriptionRepairsKey)])?
                .string == (repairs > 0 ? String(repairs) : nil), "\(comment): repairs of the state")
        var contents: [String: String] = [:]
        for file in files {
            let fromNightly = try String(contentsOfFile: folder.path("nightly/" + file), encoding: .utf8)
            let fromFull = try String(contentsOfFile: folder.path("full/" + file), encoding: .utf8)
            #expect(
                fromNightly == fromFull, "\(comment): \(file)\n\(unifiedDiff(expected: fromFull, actual: fromNightly))")
            contents[file] = fromNightly
        }
        return contents
    }

    /// The offering comparison's revenue (column `revenue_usd`) per offering of placement `pw`.
    static func revenueByOffering(_ folder: TemporaryDirectory) throws -> [String: String] {
        let rows = try String(contentsOfFile: folder.path("nightly/offering_comparison.csv"), encoding: .utf8)
            .components(separatedBy: "\r\n").filter { !$0.isEmpty }.map { $0.components(separatedBy: ",") }
        let column = rows[0].firstIndex(of: "revenue_usd")!
        return Dictionary(uniqueKeysWithValues: rows.dropFirst().map { ($0[1], $0[column]) })
    }

    @Test func latePresentationsAndAnAliasSeenLaterMoveTheAttributionAsAFullRecomputeDoes() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try SubscriptionFixture.openStore(path: folder.path("db"))
        // Given u1 saw offering a and bought an hour later, and x2 bought as anon2, who was never seen
        try ReportFixture.insert(
            [
                ReportFixture.shown(0x400, Self.d1 + 1 * Self.h, "u1", 400, "pw", offering: "a"),
                ReportFixture.shown(0x401, Self.d1 + 1 * Self.h + 10 * Self.minute, "u9", 401, "pw", offering: "b"),
            ], into: connection)
        try SubscriptionFixture.insert(
            [
                Sub(
                    id: "p1", type: "INITIAL_PURCHASE", transaction: "T1", at: Self.d1 + 2 * Self.h, user: "u1",
                    purchasedAt: Self.d1 + 2 * Self.h, price: 4_990_000, proceeds: 4_241_500),
                Sub(
                    id: "p2", type: "INITIAL_PURCHASE", transaction: "T2", at: Self.d1 + 3 * Self.h, user: "x2",
                    originalUser: "anon2", purchasedAt: Self.d1 + 3 * Self.h, price: 9_990_000),
                // u9's trial, after u9 saw b
                Sub(
                    id: "p3", type: "INITIAL_PURCHASE", transaction: "T3", at: Self.d1 + 80 * Self.minute, user: "u9",
                    period: "TRIAL", purchasedAt: Self.d1 + 80 * Self.minute, expirationAt: Self.d1 + 6 * 24 * Self.h,
                    price: 0),
            ], into: connection)
        let now = Self.d1 + 2 * 24 * Self.h
        try Self.nightlyEqualsFullRecompute(connection, folder, now: now, "first run")
        #expect(try Self.revenueByOffering(folder) == ["a": "4.99", "b": "0.00"])
        #expect(try connection.scalar("SELECT count(*) FROM report_subscriptions")?.int64 == 3)

        // When u1's later presentation of b (inside T1's window) and anon2's presentation arrive late, and
        // u9's trial converts
        try SubscriptionFixture.insert(
            [
                Sub(
                    id: "c3", type: "RENEWAL", transaction: "T3", at: Self.d1 + 40 * Self.h, user: "u9",
                    purchasedAt: Self.d1 + 40 * Self.h, trialConversion: true, price: 1_000_000)
            ], into: connection)
        try ReportFixture.insert(
            [
                ReportFixture.shown(0x402, Self.d1 + 1 * Self.h + 30 * Self.minute, "u1", 402, "pw", offering: "b"),
                ReportFixture.shown(0x403, Self.d1 + 2 * Self.h + 30 * Self.minute, "anon2", 403, "pw", offering: "a"),
            ], into: connection)
        try Self.nightlyEqualsFullRecompute(connection, folder, now: now + Self.h, "late presentations")
        // Then T1 is b's and T2 is a's
        #expect(try Self.revenueByOffering(folder) == ["a": "9.99", "b": "5.99"])

        // When T1's presentation gets an earlier first event (not an impression), on the day before, and T1
        // renews; and u9's late presentation of c takes u9's converted trial
        try ReportFixture.insert(
            [
                ReportFixture.step(0x404, "paywall_plan_selected", Self.d1 - 2 * Self.h, "u1", 402, "pw", "pro"),
                ReportFixture.shown(0x406, Self.d1 + 75 * Self.minute, "u9", 406, "pw", offering: "c"),
            ], into: connection)
        try SubscriptionFixture.insert(
            [
                Sub(
                    id: "r1", type: "RENEWAL", transaction: "T1", at: Self.d1 + 30 * Self.h, user: "u1",
                    purchasedAt: Self.d1 + 30 * Self.h, price: 4_990_000, proceeds: 4_241_500)
            ], into: connection)
        let moved = try Self.nightlyEqualsFullRecompute(connection, folder, now: now + 2 * Self.h, "moved day")
        // Then its money (two payments) is on that day, still b's
        #expect(moved["revenue.csv"]!.contains("2026-10-31,pw,") && moved["revenue.csv"]!.contains(",9.98,"))
        #expect(try Self.revenueByOffering(folder) == ["a": "9.99", "b": "9.98", "c": "1.00"])

        // When anon2's presentation (T2's) gets an earlier impression, more than 72 h before T2's purchase
        try ReportFixture.insert(
            [ReportFixture.shown(0x405, Self.d1 - 80 * Self.h, "anon2", 403, "pw", offering: "b")], into: connection)
        try Self.nightlyEqualsFullRecompute(
            connection, folder, now: now + 2 * Self.h + 1, "impression out of the window")
        // Then T2 has no presentation in its window any more (and that presentation's offering is b's now)
        #expect(try Self.revenueByOffering(folder) == ["a": "0.00", "b": "9.98", "c": "1.00"])

        // When u1 is forgotten (paywall and subscription events)
        _ = try UserErasure(
            store: EventStore(connection: connection, now: .constant(now)),
            participants: [ReportErasure(), SubscriptionErasure()]
        ).forget(["u1"])
        // Then the state is gone until the next run, which builds it without u1
        for table in ReportSchema.subscriptionStateTables {
            #expect(try connection.scalar("SELECT count(*) FROM \(table)")?.int64 == 0, "\(table)")
        }
        try Self.nightlyEqualsFullRecompute(connection, folder, now: now + 3 * Self.h, "after the erasure")
        #expect(try Self.revenueByOffering(folder) == ["b": "0.00", "c": "1.00"])
        #expect(try connection.scalar("SELECT count(*) FROM report_subscription_buyers WHERE name = 'u1'")?.int64 == 0)
        #expect(try connection.scalar("SELECT count(*) FROM report_subscriptions")?.int64 == 2)
    }

    @Test func aStateThatDisagreesWithItselfOrAnotherTimeZoneIsBuiltAgain() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try RevenueReportTests.store(folder)
        let now = Self.d1 + 5 * 24 * Self.h
        let first = try Self.nightlyEqualsFullRecompute(connection, folder, now: now, "first run")
        // When a day's money is lost and a renewal of a subscription of that day arrives
        try connection.execute("DELETE FROM report_money_days")
        try SubscriptionFixture.insert(
            [
                Sub(
                    id: "late-renewal", type: "RENEWAL", transaction: "T3", at: now - Self.h, user: "u22",
                    price: 4_990_000, proceeds: 4_241_500)
            ], into: connection)
        // Then the run finds it out, builds the state again and still equals a full recompute
        let second = try Self.nightlyEqualsFullRecompute(connection, folder, now: now, repairs: 1, "lost day")
        #expect(second != first)
        #expect(try connection.scalar("SELECT count(*) FROM report_money_days")?.int64 ?? 0 > 0)
        // When a day's money cannot be read and another renewal arrives
        try connection.execute("UPDATE report_money_days SET money = x'00'")
        try SubscriptionFixture.insert(
            [
                Sub(
                    id: "late-renewal-2", type: "RENEWAL", transaction: "T3", at: now - Self.h, user: "u22",
                    price: 4_990_000, proceeds: 4_241_500)
            ], into: connection)
        try Self.nightlyEqualsFullRecompute(connection, folder, now: now, repairs: 2, "unreadable day")
        // When one day's money cannot be read and nothing new arrives (no change of the run reaches that day)
        let days = try connection.scalar("SELECT count(*) FROM report_money_days")?.int64 ?? 0
        try connection.execute(
            "UPDATE report_money_days SET money = x'00' WHERE day_start = (SELECT min(day_start) FROM report_money_days)"
        )
        // Then the run reading it builds the state again
        try Self.nightlyEqualsFullRecompute(connection, folder, now: now, repairs: 3, "one unreadable untouched day")
        #expect(try connection.scalar("SELECT count(*) FROM report_money_days WHERE money = x'00'")?.int64 == 0)
        #expect(try connection.scalar("SELECT count(*) FROM report_money_days")?.int64 == days)
        // And a run in another time zone cuts the money in its days
        try Self.nightlyEqualsFullRecompute(
            connection, folder, now: now, timezone: "America/New_York", repairs: 3, "another time zone")
        #expect(
            try connection.scalar(
                "SELECT value FROM meta WHERE key = ?", [.text(ReportSchema.subscriptionTimezoneKey)])?
                .string == "America/New_York")
    }

    @Test func aForgottenBuyerIsInNoByteWrittenAfterTheStateHeldThem() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try SubscriptionFixture.openStore(path: folder.path("db"))
        let erased = "erased-buyer-6c1f9a"
        let kept = "kept-buyer-2b7e4d"
        // Given two buyers, each with a presentation and a subscription (one bought under an alias)
        try ReportFixture.insert(
            [
                ReportFixture.shown(0x500, Self.d1 + 1 * Self.h, erased, 500, "pw", offering: "a"),
                ReportFixture.shown(0x501, Self.d1 + 1 * Self.h, kept, 501, "pw", offering: "b"),
            ], into: connection)
        try SubscriptionFixture.insert(
            [
                Sub(
                    id: "e1", type: "INITIAL_PURCHASE", transaction: "TE", at: Self.d1 + 2 * Self.h,
                    user: "alias-of-erased-buyer", originalUser: erased, purchasedAt: Self.d1 + 2 * Self.h,
                    price: 4_990_000),
                Sub(
                    id: "k1", type: "INITIAL_PURCHASE", transaction: "TK", at: Self.d1 + 2 * Self.h, user: kept,
                    purchasedAt: Self.d1 + 2 * Self.h, price: 9_990_000),
            ], into: connection)
        let now = Self.d1 + 2 * 24 * Self.h
        try Self.nightlyEqualsFullRecompute(connection, folder, now: now, "before the erasure")
        #expect(
            try connection.scalar("SELECT count(*) FROM report_subscription_buyers WHERE name = ?", [.text(erased)])?
                .int64 == 1)
        // When the buyer is forgotten, and the next nightly run builds the state again
        _ = try UserErasure(
            store: EventStore(connection: connection, now: .constant(now)),
            participants: [ReportErasure(), SubscriptionErasure()]
        ).forget([erased])
        try Self.nightlyEqualsFullRecompute(connection, folder, now: now + Self.h, "after the erasure")
        #expect(try Self.revenueByOffering(folder) == ["b": "9.99"])
        _ = try connection.scalar("PRAGMA wal_checkpoint(TRUNCATE)")
        // Then no file the store or the reports wrote holds the forgotten id or its alias; the kept one is there
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.url.path).map(folder.path).filter {
            var directory: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &directory) && !directory.boolValue
        }
        func holding(_ needle: String) throws -> [String] {
            try files.filter { try Data(contentsOf: URL(fileURLWithPath: $0)).range(of: Data(needle.utf8)) != nil }
        }
        #expect(files.count > 10)
        #expect(try holding(erased) == [])
        #expect(try holding("alias-of-erased-buyer") == [])
        #expect(try holding(kept).contains(folder.path("db")))
    }

    @Test func aDaysMoneyReadsBackAsItWasWrittenAndTakesOutExactlyWhatWentIn() throws {
        var cell = MoneyCell()
        let trial = MoneyCell.Contribution(
            customer: 7, trial: true, converted: false, expirationAt: 1_000, refunds: 0, revenue: 0, proceeds: 0)
        let paid = MoneyCell.Contribution(
            customer: 7, trial: false, converted: false, expirationAt: nil, refunds: 1, revenue: 4_990_000,
            proceeds: 4_000_000)
        cell.add(trial)
        cell.add(paid)
        #expect(cell.customers[7] == MoneyCell.CustomerMoney(revenue: 4_990_000, subscriptions: 2))
        #expect(cell.pending(asOf: 999) == 1 && cell.pending(asOf: 1_000) == 0)
        var day = DayMoney()
        day.cells[DayMoney.Key(placementKey: 3, offering: ExactText("caf\u{E9}"))] = cell
        day.cells[DayMoney.Key(placementKey: 3, offering: ExactText("cafe\u{301}"))] = cell
        let bytes = day.encoded()
        let decoded = bytes.withUnsafeBytes { DayMoney(decoding: $0) }
        #expect(decoded == day)
        #expect(decoded?.cells.count == 2)
        #expect(Array(bytes.dropLast()).withUnsafeBytes { DayMoney(decoding: $0) } == nil)
        // taking out what went in leaves nothing; taking out what never went in is refused
        let removedPaid = cell.remove(paid)
        let removedTrial = cell.remove(trial)
        #expect(removedPaid && removedTrial)
        #expect(cell.isEmpty && cell == MoneyCell())
        let removedAgain = cell.remove(paid)
        #expect(!removedAgain)
    }
}
