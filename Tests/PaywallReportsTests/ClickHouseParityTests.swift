import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallTestSupport
import Testing

/// The ClickHouse path: export the store, load it into ClickHouse (chDB), run reports/clickhouse/*.sql,
/// and check that every number equals the SQLite path's on the same data.
struct ClickHouseParityTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var from: String
        var to: String
        var timezone: String
        var placements: [String]
        /// `--control` (the offering comparison's control), if any.
        var control: String? = nil
        var testDescription: String { "\(from)…\(to) \(timezone) \(placements) control \(control ?? "-")" }
    }

    static let cases = [
        Case(from: "2026-11-01", to: "2026-11-05", timezone: "UTC", placements: []),
        Case(from: "2026-11-01", to: "2026-11-05", timezone: "UTC", placements: [], control: "monthly"),
        Case(from: "2026-11-01", to: "2026-11-03", timezone: "America/New_York", placements: []),
        Case(
            from: "2026-11-02", to: "2026-11-02", timezone: "Asia/Kolkata",
            placements: ["a,b \"c\"", "Ünïcødé 🚀", "=SUM(A1)"]),
    ]

    /// The subscription events' columns the ClickHouse table has (the raw bodies stay in the store).
    static let subscriptionColumns =
        "id,type,environment,event_timestamp_ms,app_user_id,original_app_user_id,period_type,purchased_at_ms,"
        + "expiration_at_ms,original_transaction_id,is_trial_conversion,price_micros,proceeds_micros"

    @Test(arguments: cases)
    func clickHouseComputesTheSameNumbers(_ scenario: Case) throws {
        // Given the fixture store, exported raw (plus a second copy of every event: loading twice is harmless)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportFixture.makeStore(at: folder.path("db"), open: SubscriptionFixture.openStore)
        // with the revenue tests' presentations and subscription events (every attribution case)
        try ReportFixture.insert(RevenueReportTests.presentations, into: connection)
        try SubscriptionFixture.insert(RevenueReportTests.subscriptions, into: connection)
        // The fixture's catalog version 2 events say where they came from (the context columns load
        // into ClickHouse's table beside version 1 events without them)
        let withContext = try connection.run(
            """
            UPDATE events SET app_version = '3.2.0', build = '412', platform = 'ios', os_version = '17.4.1',
              sdk_version = '0.1.0', locale = 'de-CH' WHERE catalog_version = 2
            """)
        #expect(withContext > 0)
        let exporter = Exporter(connection: connection)
        try FileManager.default.createDirectory(atPath: folder.path("export"), withIntermediateDirectories: true)
        try exporter.export(.events, raw: true, toPath: folder.path("export/events.csv"))
        let events = try String(contentsOfFile: folder.path("export/events.csv"), encoding: .utf8)
        let body = events.split(separator: "\r\n", maxSplits: 1).last.map(String.init) ?? ""
        try (events + body).write(toFile: folder.path("export/events.csv"), atomically: true, encoding: .utf8)
        try exporter.export(.quarantine, raw: true, toPath: folder.path("export/quarantine.csv"))
        let drops = try connection.all("SELECT dropped_at, count FROM drops") {
            "\($0.int64(at: 0)),\($0.int64(at: 1))\r\n"
        }
        try ("dropped_at,count\r\n" + drops.joined()).write(
            toFile: folder.path("export/drops.csv"), atomically: true, encoding: .utf8)
        let suppressed = try connection.all("SELECT suppressed_at, count FROM suppressed_events") {
            "\($0.int64(at: 0)),\($0.int64(at: 1))\r\n"
        }
        try ("suppressed_at,count\r\n" + suppressed.joined()).write(
            toFile: folder.path("export/suppressed_events.csv"),
            atomically: true, encoding: .utf8)
        let subscriptionEvents = try connection.all(
            """
            SELECT id, type, environment, event_timestamp_ms, app_user_id, original_app_user_id, period_type,
              purchased_at_ms, expiration_at_ms, original_transaction_id, is_trial_conversion, price_micros,
              proceeds_micros FROM subscription_events
            """
        ) { row in (0..<13).map { row.isNull(at: $0) ? "" : (row.string(at: $0) ?? "") }.joined(separator: ",") + "\r\n"
        }
        try (Self.subscriptionColumns + "\r\n" + subscriptionEvents.joined() + subscriptionEvents.joined()).write(
            toFile: folder.path("export/subscription_events.csv"), atomically: true, encoding: .utf8)
        let keys = try connection.all(
            """
            SELECT k.customer_key, e.id FROM subscription_customer_keys AS k
            JOIN subscription_events AS e ON e.rowid = k.event_rowid
            """
        ) { "\($0.string(at: 0) ?? ""),\($0.string(at: 1) ?? "")\r\n" }
        try ("customer_key,event_id\r\n" + keys.joined()).write(
            toFile: folder.path("export/subscription_customer_keys.csv"), atomically: true, encoding: .utf8)
        // When SQLite (raw) and ClickHouse both compute the reports
        var reports = FunnelReport(connection: connection, now: .constant(ReportFixture.day5))
        reports.control = scenario.control
        try reports.report(
            from: try ReportDate(scenario.from), to: try ReportDate(scenario.to),
            placements: scenario.placements.isEmpty ? nil : scenario.placements, timezone: scenario.timezone,
            formulaGuard: false, into: folder.path("sqlite"))
        let placements = String(
            decoding: try JSONSerialization.data(withJSONObject: scenario.placements), as: UTF8.self)
        let (status, output, errors) = try runPython(
            "clickhouse_compare.py",
            [
                Repository.root.appendingPathComponent("reports/clickhouse").path, folder.path("sqlite"),
                folder.path("export"),
                scenario.from, scenario.to, scenario.timezone, "259200000", placements,
                String(
                    decoding: try JSONSerialization.data(withJSONObject: scenario.control.map { [$0] } ?? []),
                    as: UTF8.self),
                String(ReportFixture.day5),
            ])
        // Then every value is equal
        #expect(status == 0, "clickhouse_compare.py failed (\(Python.installAdvice)):\n\(output)\(errors)")
        // including the subscription side, on data that has money (the revenue tests' placement "pw")
        #expect(output.contains("revenue: ") && output.contains("offering_comparison: "))
        if scenario.timezone == "UTC" {
            let revenue = try String(contentsOfFile: folder.path("sqlite/revenue.csv"), encoding: .utf8)
            #expect(revenue.contains("2026-11-01,pw,6,1,3,1,1,0.5000,1,9.99,8.48,1.6650"), "\(revenue)")
        }
    }
}
