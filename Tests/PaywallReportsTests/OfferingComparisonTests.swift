import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// `offering_comparison.csv` on hand-built traffic (funnels.md "Offering comparison"): counts by
/// customer worked out by hand, statistics recomputed independently in Python (offering_check.py),
/// the native engine, the SQL files and the nightly job byte-identical.
struct OfferingComparisonTests {
    static let d1 = ReportFixture.day1, h = ReportFixture.hour

    static func shown(_ id: Int, _ at: Int64, _ user: String, _ pw: Int, _ source: String, _ offering: String?)
        -> ReportFixture.Event
    {
        ReportFixture.shown(id, at, user, pw, source, offering: offering)
    }

    static func bought(_ id: Int, _ at: Int64, _ user: String, _ pw: Int, _ source: String) -> ReportFixture.Event {
        ReportFixture.closed(id, at, user, pw, source, "purchased", "auto", 2.0, product: "pro.year")
    }

    static func dismissed(_ id: Int, _ at: Int64, _ user: String, _ pw: Int, _ source: String) -> ReportFixture.Event {
        ReportFixture.closed(id, at, user, pw, source, "dismissed", "close_button", 2.0)
    }

    static let events: [ReportFixture.Event] = [
        // first-empty: P100's first impression has no offering_id, its later one has "x": it counts as "".
        shown(0x100, d1 + 1 * h, "u1", 100, "first-empty", nil),
        shown(0x101, d1 + 1 * h + 1000, "u1", 100, "first-empty", "x"),
        bought(0x102, d1 + 1 * h + 5000, "u1", 100, "first-empty"),
        shown(0x103, d1 + 2 * h, "u2", 101, "first-empty", "x"),
        dismissed(0x106, d1 + 2 * h + 3000, "u2", 101, "first-empty"),
        // P102: two impressions in the same millisecond, stored out of order: the smaller id (0x104, no offering) is first.
        shown(0x105, d1 + 3 * h, "u3", 102, "first-empty", "x"),
        shown(0x104, d1 + 3 * h, "u3", 102, "first-empty", nil),
        // two: u4 is seen with "a" (bought twice: converted once) and with "b" (not bought): counted in both.
        shown(0x110, d1 + 4 * h, "u4", 110, "two", "a"),
        bought(0x111, d1 + 4 * h + 9000, "u4", 110, "two"),
        shown(0x112, d1 + 5 * h, "u4", 111, "two", "b"),
        dismissed(0x113, d1 + 5 * h + 1000, "u4", 111, "two"),
        shown(0x114, d2 + 1 * h, "u4", 115, "two", "a"),
        bought(0x115, d2 + 1 * h + 4000, "u4", 115, "two"),
        shown(0x116, d1 + 6 * h, "u5", 112, "two", "a"),
        dismissed(0x117, d1 + 6 * h + 2000, "u5", 112, "two"),
        shown(0x118, d2 + 6 * h, "u5", 113, "two", "a"),
        shown(0x119, d2 + 7 * h, "u6", 114, "two", "a"),
        // A purchase without an impression counts nowhere.
        bought(0x11A, d1 + 7 * h, "u7", 116, "two"),
        // tie: "k" and "m" have two customers each: the control is "k" (smaller by code points), whose rate is 0.
        shown(0x120, d1 + 8 * h, "u8", 120, "tie", "m"),
        bought(0x121, d1 + 8 * h + 1000, "u8", 120, "tie"),
        shown(0x122, d1 + 9 * h, "u9", 121, "tie", "m"),
        shown(0x123, d1 + 10 * h, "u10", 122, "tie", "k"),
        dismissed(0x124, d1 + 10 * h + 1000, "u10", 122, "tie"),
        shown(0x125, d2 + 10 * h, "u11", 123, "tie", "k"),
        // zero: nobody converts: no lift (the control's rate is 0) and no p-value (pooled standard error 0).
        shown(0x130, d1 + 11 * h, "u12", 130, "zero", "p"),
        shown(0x131, d1 + 12 * h, "u13", 131, "zero", "p"),
        shown(0x132, d1 + 13 * h, "u14", 132, "zero", "q"),
    ]
    static let d2 = ReportFixture.day2

    /// Hand-worked counts: placement, offering, customers, impressions, converted, is_control, and
    /// whether lift and p-value are empty.
    static let expected: [[String]] = [
        ["first-empty", "", "2", "2", "1", "true", "", ""],
        ["first-empty", "x", "1", "1", "0", "false", "lift", "p"],
        ["tie", "k", "2", "2", "0", "true", "", ""],
        ["tie", "m", "2", "2", "1", "false", "", "p"],
        ["two", "a", "3", "5", "1", "true", "", ""],
        ["two", "b", "1", "1", "0", "false", "lift", "p"],
        ["zero", "p", "2", "2", "0", "true", "", ""],
        ["zero", "q", "1", "1", "0", "false", "", ""],
    ]

    static func store(_ folder: TemporaryDirectory) throws -> Connection {
        let connection = try ReportSchema.open(path: folder.path("db"))
        try ReportFixture.insert(events, into: connection)
        return connection
    }

    static func rows(_ directory: String) throws -> [[String]] {
        let text = try String(contentsOfFile: directory + "/offering_comparison.csv", encoding: .utf8)
        var lines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(
            lines.removeFirst()
                == "placement,offering,customers,impressions,converted,conversion_rate,ci_low,ci_high,is_control,lift,p_value,"
                + "paid_starts,trial_starts,revenue_usd,revenue_per_customer,rpc_ci_low,rpc_ci_high,revenue_p_value,diff,"
                + "seq_ci_low,seq_ci_high,seq_p_value,srm_p_value")
        return lines.map { $0.components(separatedBy: ",") }
    }

    /// The hand-checkable columns of a row, lift and p-value as empty or present.
    static func shape(_ row: [String]) -> [String] {
        Array(row[0..<5]) + [row[8], row[9].isEmpty ? "" : "lift", row[10].isEmpty ? "" : "p"]
    }

    @Test(arguments: ReportEngine.allCases)
    func countsByCustomerMatchTheHandWorkedRowsAndPythonAgrees(_ engine: ReportEngine) throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given the hand-built traffic
        var reports = FunnelReport(connection: try Self.store(folder), now: .constant(ReportFixture.day5))
        reports.engine = engine
        // When the range report runs
        try reports.report(
            from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"), into: folder.path("out"))
        // Then the counts are the hand-worked ones
        let rows = try Self.rows(folder.path("out"))
        #expect(rows.map(Self.shape) == Self.expected)
        // and the rates, intervals, lifts and p-values equal Python's to 4 decimals
        let (status, output, errors) = try runPython("offering_check.py", [folder.path("out/offering_comparison.csv")])
        #expect(status == 0, "offering_check.py:\n\(output)\(errors)")
        // A few by hand: two/b (1 customer, 0 converted) against two/a (1 of 3): lift −1,
        // pooled 1/4, se = sqrt(1/4 · 3/4 · (1 + 1/3)) = 0.5, z = −1/3 / 0.5, p = erfc(0.6667 / √2) = 0.5050
        #expect(rows[5][9] == "-1.0000" && rows[5][10] == "0.5050")
        // Wilson of 0 of 1: [0, z²/(1 + z²)] = [0, 0.7935]
        #expect(rows[5][6] == "0.0000" && rows[5][7] == "0.7935")
    }

    @Test func controlChoosesTheNamedOfferingOnlyWhereThePlacementHasIt() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        var reports = FunnelReport(connection: try Self.store(folder), now: .constant(ReportFixture.day5))
        // When the control is "m" (only "tie" has it), with both engines
        for engine in ReportEngine.allCases {
            reports.engine = engine
            reports.control = "m"
            try reports.report(
                from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"),
                into: folder.path(engine.rawValue))
        }
        // Then "tie" compares against "m" and every other placement keeps its most-seen offering
        let rows = try Self.rows(folder.path("native"))
        var expected = Self.expected
        expected[2] = ["tie", "k", "2", "2", "0", "false", "lift", "p"]
        expected[3] = ["tie", "m", "2", "2", "1", "true", "", ""]
        #expect(rows.map(Self.shape) == expected)
        #expect(try Self.rows(folder.path("sql")) == rows)
        let (status, output, errors) = try runPython(
            "offering_check.py", [folder.path("native/offering_comparison.csv"), "m"])
        #expect(status == 0, "offering_check.py:\n\(output)\(errors)")
        // When the control names an offering no placement has; Then every placement keeps its default
        reports.control = "nowhere"
        try reports.report(
            from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"), into: folder.path("none"))
        #expect(try Self.rows(folder.path("none")).map(Self.shape) == Self.expected)
    }

    @Test func theNightlyJobWritesTheSameComparisonAsTheRangeReport() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try Self.store(folder)
        // Given a nightly run, then a late impression for u3 at "two" with "b" and a late purchase of P101
        let nightly = FunnelReport(connection: connection, now: .constant(ReportFixture.day5))
        try nightly.nightly(into: folder.path("nightly"), version: "t")
        let (d1, d2, h) = (Self.d1, Self.d2, Self.h)
        try ReportFixture.insert(
            [
                Self.shown(0x140, d2 + 20 * h, "u3", 140, "two", "b"),
                Self.bought(0x141, d1 + 2 * h + 2000, "u2", 101, "first-empty"),
            ], into: connection)
        let run = try nightly.nightly(into: folder.path("nightly"), version: "t")
        // When the range report covers the same window; Then both files are byte-identical
        try nightly.report(
            from: try ReportDate(run.windowFrom), to: try ReportDate(run.windowTo), into: folder.path("range"))
        let expected = try String(contentsOfFile: folder.path("range/offering_comparison.csv"), encoding: .utf8)
        let actual = try String(contentsOfFile: folder.path("nightly/offering_comparison.csv"), encoding: .utf8)
        #expect(actual == expected, "\(unifiedDiff(expected: expected, actual: actual))")
        #expect(
            try Self.rows(folder.path("nightly")).map(Self.shape)[5] == [
                "two", "b", "2", "2", "0", "false", "lift", "p",
            ])
    }

    @Test(arguments: [(0, 1), (1, 1), (0, 5), (3, 10), (10, 10), (437, 5000)])
    func theWilsonIntervalHoldsTheRateAndStaysInZeroToOne(_ converted: Int, _ customers: Int) {
        let (low, high) = OfferingStatistics.wilson(converted: Int64(converted), customers: Int64(customers))
        let rate = Double(converted) / Double(customers)
        // (rounding may leave a bound a unit in the last place inside the rate at 0 or 1)
        #expect(low >= 0 && high <= 1 && low <= rate + 1e-12 && rate <= high + 1e-12)
        if converted == 0 { #expect(low == 0) }
        if converted == customers { #expect(high > 1 - 1e-12) }
    }

    @Test func theRegisteredSQLFunctionsAreTheCLibrarys() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportSchema.open(path: folder.path("db"))
        let value = try connection.withDatabase { db in
            try db.defineMathFunctions()
            return try db.all(
                "SELECT erfc(1.959964 / square_root(2.0)), erfc(NULL), square_root(2.0), square_root(NULL)"
            ) { row in
                (0..<4).map { row.value(at: $0) }
            }.first ?? []
        }
        #expect(abs((value[0].double ?? 0) - 0.05) < 1e-6)
        #expect(value[1] == .null && value[3] == .null)
        #expect(value[2].double == 2.0.squareRoot())
    }
}
