import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// After `forget`, every report — the nightly run included — equals, byte for byte, the report of a
/// store that imported the same data without those customers' events.
struct ErasureReportTests {
    static let now = ReportFixture.day1 + 7 * 24 * ReportFixture.hour
    static let forgotten: Set<String> = ["u3", "u17", "u29", "u38"]

    /// The random traffic with some impressions pending or dead-lettered, so every data-quality column moves.
    static func traffic() -> [ReportFixture.Event] {
        EngineAgreementTests.randomEvents(seed: 23).map { event in
            var event = event
            if event.name == "paywall_shown", event.id % 7 == 0 { event.delivery = "dead" }
            if event.name == "paywall_shown", event.id % 5 == 0 { event.delivery = "pending" }
            return event
        }
    }

    func files(_ folder: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for file in ReportFile.all.map(\.fileName) + [HTMLReport.fileName] {
            out[file] = try String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8)
        }
        return out
    }

    func expectEqual(
        _ actual: String, _ expected: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let want = try files(expected)
        let got = try files(actual)
        for (file, text) in want {
            #expect(
                got[file] == text, "\(what), \(file)\n\(unifiedDiff(expected: text, actual: got[file] ?? ""))",
                sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: ["UTC", "America/New_York", "Asia/Kolkata"])
    func reportsAfterForgetEqualThoseOfAStoreThatNeverHeldTheCustomers(_ timezone: String) throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let events = Self.traffic()
        let first = Array(events[..<(events.count / 2)])
        let second = Array(events[(events.count / 2)..<(events.count * 3 / 4)])
        let late = Array(events[(events.count * 3 / 4)...]).filter { !Self.forgotten.contains($0.user) }
        // Given a store that ran the nightly job over half the traffic (rollups and day partials
        // built), then received a quarter more (not folded yet)
        let store = try ReportSchema.open(path: folder.path("store"))
        try ReportFixture.insert(first, into: store)
        try FunnelReport(connection: store, now: .constant(Self.now)).nightly(
            into: folder.path("before"), timezone: timezone, version: "t")
        try ReportFixture.insert(second, into: store)
        #expect(try store.scalar("SELECT count(*) FROM report_customers WHERE user_id = 'u17'")?.int64 == 1)
        // When four customers are forgotten, then the last, late quarter arrives and the nightly job runs
        let report = try UserErasure(
            store: EventStore(connection: store, now: .constant(Self.now)),
            participants: [ReportErasure()]
        ).forget(Array(Self.forgotten))
        #expect(report.events == (first + second).filter { Self.forgotten.contains($0.user) }.count)
        #expect(report.rows(in: "report_presentations") > 0)
        #expect(
            try store.scalar("SELECT count(*) FROM report_customers WHERE user_id IN ('u3', 'u17', 'u29', 'u38')")?
                .int64 == 0)
        try ReportFixture.insert(late, into: store)
        let nightly = try FunnelReport(connection: store, now: .constant(Self.now))
            .nightly(into: folder.path("nightly"), timezone: timezone, version: "t")
        // And a reference store imports the same traffic without those customers, in one go
        let reference = try ReportSchema.open(path: folder.path("reference"))
        try ReportFixture.insert(events.filter { !Self.forgotten.contains($0.user) }, into: reference)
        let expected = try FunnelReport(connection: reference, now: .constant(Self.now))
            .nightly(into: folder.path("expected"), timezone: timezone, version: "t")
        // Then the nightly outputs are equal byte for byte, over the same window
        #expect(nightly.windowFrom == expected.windowFrom && nightly.windowTo == expected.windowTo)
        try expectEqual(folder.path("nightly"), folder.path("expected"), "nightly, \(timezone)")
        // And so is a full-scan report over that window, and a second nightly run changes nothing
        let from = try ReportDate(expected.windowFrom)
        let to = try ReportDate(expected.windowTo)
        try FunnelReport(connection: store, now: .constant(Self.now)).report(
            from: from, to: to, timezone: timezone, into: folder.path("scan"))
        try FunnelReport(connection: reference, now: .constant(Self.now))
            .report(from: from, to: to, timezone: timezone, into: folder.path("scan-expected"))
        try expectEqual(folder.path("scan"), folder.path("scan-expected"), "full scan, \(timezone)")
        try FunnelReport(connection: store, now: .constant(Self.now)).nightly(
            into: folder.path("nightly"), timezone: timezone, version: "t")
        try expectEqual(folder.path("nightly"), folder.path("expected"), "second nightly, \(timezone)")
    }

    @Test func aPresentationSharedWithAnotherCustomerRebuildsTheRollupsAndStillEqualsTheReference() throws {
        // Given a folded store in which one presentation holds events of two customers
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        var events = Self.traffic()
        let shared = events.first { $0.user == "u3" }!.pw
        events.append(
            ReportFixture.closed(
                90_000, ReportFixture.day1 + 30 * ReportFixture.hour, "u4", shared, "onboarding",
                "dismissed", "close_button", 2))
        let store = try ReportSchema.open(path: folder.path("store"))
        try ReportFixture.insert(events, into: store)
        try FunnelReport(connection: store, now: .constant(Self.now)).nightly(into: folder.path("before"), version: "t")
        // When the customer u3 is forgotten and the nightly job runs
        _ = try UserErasure(
            store: EventStore(connection: store, now: .constant(Self.now)), participants: [ReportErasure()]
        )
        .forget(["u3"])
        try FunnelReport(connection: store, now: .constant(Self.now)).nightly(
            into: folder.path("nightly"), version: "t")
        // Then it equals a store that never held u3's events
        let reference = try ReportSchema.open(path: folder.path("reference"))
        try ReportFixture.insert(events.filter { $0.user != "u3" }, into: reference)
        try FunnelReport(connection: reference, now: .constant(Self.now)).nightly(
            into: folder.path("expected"), version: "t")
        try expectEqual(folder.path("nightly"), folder.path("expected"), "shared presentation")
    }
}
